package db

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Writers get the lock in the order they queued for it, and one whose
// context ends while it waits leaves the queue with the context's kind.
func TestFIFOLockOrderAndCancel(t *testing.T) {
	l := newFIFOLock()
	ctx := context.Background()
	if err := l.LockContext(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 20
	order := make(chan int, n)
	for i := 0; i < n; i++ {
		go func() {
			if err := l.LockContext(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- i
			l.Unlock()
		}()
		// Each writer is queued before the next starts.
		waitQueued(t, i+1)
	}

	gone, cancel := context.WithCancel(ctx)
	left := make(chan error, 1)
	go func() { left <- l.LockContext(gone) }()
	waitQueued(t, n+1)
	cancel()
	if err := <-left; !errors.Is(err, ErrCanceled) {
		t.Fatalf("a cancelled wait answered %v, want ErrCanceled", err)
	}
	late, stop := context.WithTimeout(ctx, time.Millisecond)
	defer stop()
	if err := l.LockContext(late); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a wait past its deadline answered %v, want ErrUnavailable", err)
	}

	l.Unlock()
	for want := 0; want < n; want++ {
		if got := <-order; got != want {
			t.Fatalf("writer %d got the lock in turn %d", got, want)
		}
	}
}

// waitQueued waits until n goroutines are blocked in LockContext, as the
// runtime's goroutine dump shows them ("[select]" in (*fifoLock).LockContext).
func waitQueued(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		dump := string(buf[:runtime.Stack(buf, true)])
		queued := 0
		for _, g := range strings.Split(dump, "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "fifoLock).LockContext") {
				queued++
			}
		}
		if queued == n {
			return
		}
	}
	t.Fatalf("%d writers never queued", n)
}

package logging

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBufferedFlushesOnCloseAndInterval(t *testing.T) {
	var out syncBuffer
	b := NewBuffered(&out, time.Hour)
	JSON(b).Info("hello", "n", 1)
	if out.String() != "" {
		t.Fatal("a line was written before any flush")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"msg":"hello"`) {
		t.Fatalf("Close must flush: %q", out.String())
	}

	var out2 syncBuffer
	b = NewBuffered(&out2, 10*time.Millisecond)
	defer b.Close()
	JSON(b).Info("tick")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out2.String(), "tick") {
		if time.Now().After(deadline) {
			t.Fatal("the interval flush never came")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBufferedNeverSplitsALine(t *testing.T) {
	var out syncBuffer
	b := NewBuffered(&out, time.Hour)
	line := strings.Repeat("x", 40<<10) + "\n"
	for i := 0; i < 5; i++ {
		b.Write([]byte(line))
	}
	b.Close()
	for _, l := range strings.SplitAfter(out.String(), "\n") {
		if l != "" && l != line {
			t.Fatalf("a line was split or merged: %d bytes", len(l))
		}
	}
}

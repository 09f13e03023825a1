// Package logging holds the service's log output: JSON lines (log/slog)
// through a buffer flushed a few times a second, so that a busy server
// does not pay a write system call for every request's line.
package logging

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// Buffered is a writer that collects writes and flushes them to its
// destination every interval, when the buffer fills, and on Close.
type Buffered struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// NewBuffered starts a buffered writer to out.
func NewBuffered(out io.Writer, interval time.Duration) *Buffered {
	b := &Buffered{w: bufio.NewWriterSize(out, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write buffers p. A line is never split across flushes: the buffer
// flushes before a write that does not fit.
func (b *Buffered) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) > b.w.Available() && b.w.Buffered() > 0 {
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	return b.w.Write(p)
}

// Flush writes out what is buffered.
func (b *Buffered) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the flushing and flushes what remains.
func (b *Buffered) Close() error {
	close(b.stop)
	<-b.done
	return b.Flush()
}

package db

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// checkpointEvery is how often the checkpointer copies SQLite's
// write-ahead log into the database file.
const checkpointEvery = 100 * time.Millisecond

// checkpoints runs SQLite's checkpoints in the background, every interval,
// on a connection of its own and outside the process's write lock: a
// PASSIVE checkpoint copies what no reader still needs while writers go
// on appending to the log (SQLite's automatic checkpoint, turned off by
// noAutoCheckpoint, ran inside the write that crossed its threshold, and
// every other writer waited for it). It returns the function that stops it.
func checkpoints(pool *sql.DB, interval time.Duration) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// A failure (the database closing, a busy file) is
				// retried at the next tick; nothing waits on it.
				_, _ = pool.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

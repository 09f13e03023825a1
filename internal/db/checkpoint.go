package db

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// checkpointEvery is how often, while the process writes, the
// checkpointer copies SQLite's write-ahead log into the database file.
// Often enough that each checkpoint is short: a checkpoint is work on the
// server's cores like any request's, and one that copies a tenth of a
// second of writes at once held requests back in a burst (32 writers on
// one core: create p99 23–108 ms checkpointing every 100 ms). Not so often
// that syncing the files, twice a checkpoint, costs the writes: every
// 10 ms they ran at 0.84–0.92 × the hand-written baseline, every 30 ms at
// 0.88–0.98 with the same tail, every 50 ms no faster (README, Writes).
const checkpointEvery = 30 * time.Millisecond

// checkpointIdle is how often the checkpointer runs while the process
// writes nothing (another process may write the file).
const checkpointIdle = time.Second

// checkpoints runs SQLite's checkpoints in the background, every interval
// after writes made under lock (every idle when none were made), on a
// connection of its own and outside the process's write lock: a PASSIVE
// checkpoint copies what no reader still needs while writers go on
// appending to the log (SQLite's automatic checkpoint, turned off by
// noAutoCheckpoint, ran inside the write that crossed its threshold, and
// every other writer waited for it). Once the log is restart pages long,
// the checkpoint is finished holding lock (see checkpoint). After each
// checkpoint it runs a pass of the FTS5 merger (ftsMerger), which keeps the
// search tables merged a step at a time; before it, index (when not nil),
// which indexes the records the creates since the last tick queued for
// search (searchqueue.go), so that the checkpoint copies its pages with
// theirs. It returns the function that stops it.
func checkpoints(pool *sql.DB, interval, idle time.Duration, restart int, lock *fifoLock, index func(context.Context) (int, error)) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		written, last := lock.Freed(), time.Now()
		merges := &ftsMerger{pool: pool, lock: lock}
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				w := lock.Freed()
				if w == written && now.Sub(last) < idle {
					continue
				}
				quiet := w == written // a second without writes
				written, last = w, now
				// A failure (the database closing, a busy file) is
				// retried at the next tick; nothing waits on it.
				if index != nil {
					_, _ = index(ctx)
				}
				if checkpoint(ctx, pool) >= restart && !quiet && lock.LockContext(ctx) == nil {
					checkpoint(ctx, pool)
					lock.UnlockUnwritten()
				}
				_, _ = merges.pass(ctx, quiet)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// restartFrames is how long the log may grow (pages written to it, 4 KiB
// each, so 128 MiB) before a checkpoint is finished holding the write
// lock. Finishing it so stalls writers for a moment; at 32,768 pages that
// is every half second or so of steady writing, and the tail of writes
// measured the same as without it.
const restartFrames = 32768

// checkpoint runs a PASSIVE checkpoint and answers how long the log was (0
// when it fails). SQLite starts the log over at a write that finds it
// wholly copied; but under steady writes a checkpoint made beside them
// never leaves it so — they append while it copies — and the log, with the
// index every read searches it by, grows without end (1.9 GB in a minute of
// upserts, against a 240 MB database). So once the log passes
// restartFrames the checkpointer copies what came in meanwhile again,
// holding the write lock, and the next write starts the log over. It
// does so only after writes: a log wholly copied stays as long until the
// next write, and a quiet tick's checkpoint copies what any write before
// it left. Its hand-over of the lock counts no write
// (fifoLock.UnlockUnwritten): counted, it woke the checkpointer at its
// next tick, which held the lock again, every tick for as long as nothing
// was written.
func checkpoint(ctx context.Context, pool *sql.DB) int {
	var busy, log, copied int
	if err := pool.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil {
		return 0
	}
	return log
}

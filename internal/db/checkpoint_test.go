package db

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// notes opens a SQLite database of its own, as the service opens one but
// for the checkpointer, with one table of notes; it answers the file's path.
func notes(t *testing.T) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes.db")
	pool, err := sql.Open("sqlite", "file:"+path+"?"+SQLitePragmas+noAutoCheckpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	if _, err := pool.ExecContext(context.Background(), `CREATE TABLE "notes" ("id" integer PRIMARY KEY, "text" text)`); err != nil {
		t.Fatal(err)
	}
	return path, pool
}

// Under steady writes, each taking the write lock as Write does, the
// checkpointer keeps the write-ahead log near its bound: SQLite starts the
// log over only at a write that finds it wholly copied, which a checkpoint
// made beside the writes never leaves it (compare a bound never reached,
// below, where it grows on).
func TestCheckpointsKeepTheLogShort(t *testing.T) {
	grow := func(restart int) int64 {
		path, pool := notes(t)
		pool.SetMaxOpenConns(4)
		ctx := context.Background()
		lock := newFIFOLock()
		stop := checkpoints(pool, 5*time.Millisecond, time.Second, restart, lock, nil)
		defer stop()
		text := strings.Repeat("x", 3000) // about a page a row
		deadline := time.Now().Add(1500 * time.Millisecond)
		for time.Now().Before(deadline) {
			if err := lock.LockContext(ctx); err != nil {
				t.Fatal(err)
			}
			_, err := pool.ExecContext(ctx, `INSERT INTO "notes" ("text") VALUES (?)`, text)
			lock.Unlock()
			if err != nil {
				t.Fatal(err)
			}
		}
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// The log's file keeps the longest it has been: the bound, and what
	// was written while the checkpoint that found it passed ran (here
	// 8 MiB against 600 MiB without restarts; up to 51 MiB when the
	// machine's other work kept the checkpointer from running).
	bounded := grow(256)
	unbounded := grow(1 << 30)
	t.Logf("log: %d bytes, %d without restarts", bounded, unbounded)
	if bounded > 96<<20 || unbounded < 4*bounded {
		t.Errorf("the log grew to %d bytes with restarts after 256 pages, to %d without", bounded, unbounded)
	}
}

// The checkpointer copies the log after writes made under the write lock
// and rests while there are none: an idle server does not wake a hundred
// times a second. (Rows written here without the lock stay in the log
// until a write under it.)
func TestCheckpointsRestWhileNothingIsWritten(t *testing.T) {
	path, pool := notes(t)
	ctx := context.Background()
	if _, err := pool.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	lock := newFIFOLock()
	stop := checkpoints(pool, time.Millisecond, time.Hour, 1<<30, lock, nil)
	defer stop()
	for range 20 {
		if _, err := pool.ExecContext(ctx, `INSERT INTO "notes" ("text") VALUES (?)`, strings.Repeat("x", 3000)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if got := size(); got != before {
		t.Fatalf("with nothing written under the lock the checkpointer ran: the file grew from %d to %d bytes", before, got)
	}
	if err := lock.LockContext(ctx); err != nil {
		t.Fatal(err)
	}
	lock.Unlock()
	for deadline := time.Now().Add(5 * time.Second); size() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a write under the lock was not followed by a checkpoint")
		}
	}
}

// A log past the restart bound that a checkpoint wholly copied is left for
// the next write to start over: while nothing is written the checkpointer
// counts no write of its own. (It held the lock to copy the log again and
// counted its hand-over as a write, which woke it at its next tick, and
// so on at every tick for as long as the process wrote nothing.)
func TestCheckpointsRestAfterALongLog(t *testing.T) {
	_, pool := notes(t)
	ctx := context.Background()
	lock := newFIFOLock()
	const restart = 16
	stop := checkpoints(pool, time.Millisecond, 50*time.Millisecond, restart, lock, nil)
	defer stop()
	// One write of four times the bound, which no write after it starts
	// over.
	if err := lock.LockContext(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := pool.ExecContext(ctx, `WITH RECURSIVE "n" ("i") AS (SELECT 1 UNION ALL SELECT "i" + 1 FROM "n" WHERE "i" < ?)
INSERT INTO "notes" ("text") SELECT ? FROM "n"`, 4*restart, strings.Repeat("x", 3000))
	lock.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the checkpoints after the writes
	before := lock.Freed()
	time.Sleep(300 * time.Millisecond) // some 300 ticks, six of them idle
	if after := lock.Freed(); after != before {
		t.Fatalf("with nothing written the checkpointer counted %d writes in 300 ms", after-before)
	}
	if log := checkpoint(ctx, pool); log < restart {
		t.Fatalf("the log is %d pages: want at least %d, the case tested", log, restart)
	}
}

package sqlitemutex_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"records/internal/db"
	"records/internal/sqlitemutex"
)

// The service's mutexes are SQLite's: installed before SQLite first
// initialised (a driver that initialised it in its own init would have
// SQLite refuse them, and the service fall back to the C library's).
func TestSQLiteTakesTheServicesMutexes(t *testing.T) {
	if err := sqlitemutex.Installed(); err != nil {
		t.Fatal(err)
	}
}

// Connections of one file, each read and written by its own goroutines at
// once, keep every write: the mutexes serialise what SQLite shares between
// connections (the file's locks, the page cache's groups) and within one.
func TestSQLiteMutexesHoldUnderConcurrentConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	pool, err := sql.Open("sqlite", "file:"+path+"?"+db.SQLitePragmas)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pool.SetMaxOpenConns(8)
	ctx := context.Background()
	if _, err := pool.ExecContext(ctx, `CREATE TABLE n (k INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for w := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := pool.ExecContext(ctx, `INSERT INTO n (k, v) VALUES (?, ?)`, w*each+i, fmt.Sprint("value ", i)); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range each {
				var n int
				if err := pool.QueryRowContext(ctx, `SELECT count(*) FROM n WHERE v LIKE 'value%'`).Scan(&n); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRowContext(ctx, `SELECT count(*) FROM n`).Scan(&n); err != nil || n != writers*each {
		t.Fatalf("%d rows (%v), want %d", n, err, writers*each)
	}
}

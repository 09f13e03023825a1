package db_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"records/internal/db"
	"records/internal/dbtest"
)

// endless counts far past any test's time: a statement that is not
// interrupted keeps the test from ending.
const endless = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000000)
SELECT count(*) FROM c`

// counted answers n rows, one a number from 1 to n.
const counted = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
SELECT x FROM c`

// A statement is interrupted when its context ends, on both databases: at
// the deadline it is unavailability (503), when its caller gives up it is a
// cancellation (499); between two rows as well as inside one step; and the
// pool serves the next statement afterwards.
func TestStatementsEndWithTheirContexts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		ignore := func(*sql.Rows) error { return nil }
		works := func() {
			t.Helper()
			var one int
			err := database.Each(context.Background(), 1, "SELECT 1", nil, func(r *sql.Rows) error { return r.Scan(&one) })
			if err != nil || one != 1 {
				t.Fatalf("the next statement: %d, %v", one, err)
			}
		}

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := database.Each(ctx, -1, endless, nil, ignore)
		cancel()
		if !errors.Is(err, db.ErrUnavailable) || errors.Is(err, db.ErrCanceled) {
			t.Errorf("past its deadline: %v, want unavailable", err)
		}
		works()

		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		err = database.Each(ctx, -1, endless, nil, ignore)
		if !errors.Is(err, db.ErrCanceled) {
			t.Errorf("given up: %v, want canceled", err)
		}
		works()

		ctx, cancel = context.WithCancel(context.Background())
		rows := 0
		err = database.Each(ctx, -1, counted, []any{1000000}, func(*sql.Rows) error {
			if rows++; rows == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, db.ErrCanceled) || rows == 1000000 {
			t.Errorf("given up between rows: %v after %d rows, want canceled before the end", err, rows)
		}
		works()

		err = database.Each(ctx, -1, "SELECT 1", nil, ignore)
		if !errors.Is(err, db.ErrCanceled) {
			t.Errorf("given up before it starts: %v, want canceled", err)
		}
		works()
	})
}

// A statement's context is watched only while it runs: its end afterwards
// reaches nothing, not even the next statement on the same connection (the
// SQLite driver interrupts a connection, not a statement).
func TestAStatementsContextEndsWithIt(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			database, err := db.Open(context.Background(), db.Config{URL: dbtest.URL(t, d), MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer database.Close()
			first, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := database.Each(first, -1, counted, []any{3}, func(*sql.Rows) error { return nil }); err != nil {
				t.Fatal(err)
			}
			const n = 200000
			rows := 0
			err = database.Each(context.Background(), -1, counted, []any{n}, func(*sql.Rows) error {
				if rows++; rows == 5 {
					cancel() // the first statement's context, on the pool's one connection
				}
				return nil
			})
			if err != nil || rows != n {
				t.Errorf("the next statement: %d rows, %v; want %d", rows, err, n)
			}
		})
	}
}

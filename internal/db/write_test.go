package db_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"records/internal/db"
	"records/internal/dbtest"
)

// A write is counted (DB.Writes: what keeps a search's samples, and wakes
// the checkpointer) only when it changed a row: a write refused under the
// lock, one that only read, matched nothing or was rolled back is not. On
// PostgreSQL nothing is counted.
func TestOnlyWritesThatChangeARowAreCounted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		ctx := context.Background()
		if _, err := database.Exec(ctx, `CREATE TABLE "counted" ("id" TEXT PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		refused := errors.New("refused")
		insert := func(id string) func(*db.Writer) error {
			return func(w *db.Writer) error {
				_, err := w.Exec(ctx, `INSERT INTO "counted" ("id") VALUES (?)`, id)
				return err
			}
		}
		cases := []struct {
			name    string
			inTx    bool
			fn      func(*db.Writer) error
			fails   bool
			counted bool
		}{
			{"an insert", false, insert("a"), false, true},
			{"a duplicate key", false, insert("a"), true, false},
			{"a read", false, func(w *db.Writer) error {
				return w.Each(ctx, -1, `SELECT "id" FROM "counted"`, nil, func(*sql.Rows) error { return nil })
			}, false, false},
			{"reads answering rows, through Exec and Query", false, func(w *db.Writer) error {
				if _, err := w.Exec(ctx, `SELECT 1`); err != nil {
					return err
				}
				_, err := w.Query(ctx, -1, `SELECT "id" FROM "counted"`, nil, func(*sql.Rows) error { return nil })
				return err
			}, false, false},
			{"an update that matches nothing", false, func(w *db.Writer) error {
				_, err := w.Exec(ctx, `UPDATE "counted" SET "id" = 'c' WHERE "id" = 'none'`)
				return err
			}, false, false},
			{"a delete answering nothing", false, func(w *db.Writer) error {
				_, err := w.Query(ctx, -1, `DELETE FROM "counted" WHERE "id" = 'none' RETURNING "id"`, nil, func(*sql.Rows) error { return nil })
				return err
			}, false, false},
			{"a delete answering its row", false, func(w *db.Writer) error {
				_, err := w.Query(ctx, -1, `DELETE FROM "counted" WHERE "id" = 'a' RETURNING "id"`, nil, func(*sql.Rows) error { return nil })
				return err
			}, false, true},
			{"a transaction committed", true, insert("b"), false, true},
			{"no statement through the writer", false, func(*db.Writer) error { return nil }, false, true},
			{"a transaction rolled back", true, func(w *db.Writer) error {
				if err := insert("c")(w); err != nil {
					return err
				}
				return refused
			}, true, false},
			{"statements on their own, the second refused", false, func(w *db.Writer) error {
				if err := insert("d")(w); err != nil {
					return err
				}
				return insert("d")(w)
			}, true, true},
		}
		for _, c := range cases {
			before := database.Writes()
			err := database.Write(ctx, c.inTx, c.fn)
			if (err != nil) != c.fails {
				t.Errorf("%s: %v", c.name, err)
			}
			want := uint64(0)
			if c.counted && !database.Postgres() {
				want = 1
			}
			if got := database.Writes() - before; got != want {
				t.Errorf("%s: %d writes counted, want %d", c.name, got, want)
			}
		}
		var n int
		if err := database.Each(ctx, 1, `SELECT count(*) FROM "counted"`, nil, func(r *sql.Rows) error { return r.Scan(&n) }); err != nil || n != 2 {
			t.Errorf("rows left: %d, %v; want 2 (b, d)", n, err)
		}
	})
}

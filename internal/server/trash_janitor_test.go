package server

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
)

// trashServer is a server on a new database of dialect d whose trash
// keeps records an hour.
func trashServer(t *testing.T, d string) (*Server, *db.DB) {
	database := dbtest.Open(t, d)
	cfg := DefaultConfig()
	cfg.TrashRetention = time.Hour
	s, err := New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return s, database
}

// The janitor empties the trash of what has been there longer than the
// retention — parents with their children, children trashed alone, in
// batches — and of nothing younger; each record's purge is one event, and
// sweeping again, or from two instances at once, purges nothing twice.
func TestEmptyTrash(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			s, database := trashServer(t, d)
			other, err := New(s.cfg, database, io.Discard) // a second instance
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			now := time.Now().UTC()
			old, recent := now.Add(-2*time.Hour).UnixMicro(), now.Add(-time.Minute).UnixMicro()
			exec := func(text string, args ...any) {
				t.Helper()
				if _, err := database.Exec(ctx, text, args...); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := auth.NewStore(database, 0).Team(ctx, "default"); err != nil {
				t.Fatal(err)
			}
			warranty := func(id string, at any, batch any) {
				exec(`INSERT INTO "warranties" ("id", "team_id", "version", "deleted_at", "trash_batch") VALUES (?, 1, 2, ?, ?)`, id, at, batch)
			}
			item := func(id, parent string, at any, batch any) {
				exec(`INSERT INTO "warranty_line_items" ("id", "team_id", "version", "warranty_id", "deleted_at", "trash_batch") VALUES (?, 1, 2, ?, ?, ?)`,
					id, parent, at, batch)
			}
			warranty("w-old", old, "b1")
			item("l-old", "w-old", old, "b1")
			warranty("w-recent", recent, "b2")
			item("l-recent", "w-recent", recent, "b2")
			warranty("w-live", nil, nil)
			item("l-live", "w-live", nil, nil)
			item("l-alone", "w-live", old, "b3")
			const many = trashBatch*2 + 7 // more than one statement's batch
			for i := range many {
				exec(`INSERT INTO "customers" ("id", "team_id", "version", "deleted_at", "trash_batch") VALUES (?, 1, 2, ?, ?)`,
					fmt.Sprintf("c-%04d", i), old, fmt.Sprintf("cb-%d", i))
			}
			ids := func(table string) []string {
				t.Helper()
				var got []string
				err := database.Each(ctx, -1, `SELECT "id" FROM "`+table+`" ORDER BY 1`, nil, func(rows *sql.Rows) error {
					var v string
					err := rows.Scan(&v)
					got = append(got, v)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			purges := func() map[string]int {
				t.Helper()
				got := map[string]int{}
				err := database.Each(ctx, -1, `SELECT "record_id" FROM "events" WHERE "type" LIKE '%.purged'`, nil, func(rows *sql.Rows) error {
					var v string
					err := rows.Scan(&v)
					got[v]++
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			var wg sync.WaitGroup
			for _, srv := range []*Server{s, other} {
				wg.Go(func() { srv.EmptyTrash(ctx, now) })
			}
			wg.Wait()
			s.EmptyTrash(ctx, now) // once more: nothing left to purge
			if got, want := ids("warranties"), []string{"w-live", "w-recent"}; !slices.Equal(got, want) {
				t.Fatalf("warranties %v, want %v", got, want)
			}
			if got, want := ids("warranty_line_items"), []string{"l-live", "l-recent"}; !slices.Equal(got, want) {
				t.Fatalf("line items %v, want %v", got, want)
			}
			if got := ids("customers"); len(got) != 0 {
				t.Fatalf("%d customers left in the trash", len(got))
			}
			p := purges()
			if len(p) != many+3 {
				t.Fatalf("%d records purged, want %d", len(p), many+3)
			}
			for id, n := range p {
				if n != 1 {
					t.Fatalf("%s purged %d times", id, n)
				}
			}
			for _, id := range []string{"w-old", "l-old", "l-alone"} {
				if p[id] != 1 {
					t.Fatalf("no purge of %s: %v", id, p)
				}
			}
		})
	}
}

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
			many := seedTrash(t, database, now)
			var wg sync.WaitGroup
			for _, srv := range []*Server{s, other} {
				wg.Go(func() { srv.EmptyTrash(ctx, now) })
			}
			wg.Wait()
			s.EmptyTrash(ctx, now) // once more: nothing left to purge
			if got, want := column(t, database, `SELECT "id" FROM "warranties" ORDER BY 1`), []string{"w-live", "w-recent"}; !slices.Equal(got, want) {
				t.Fatalf("warranties %v, want %v", got, want)
			}
			if got, want := column(t, database, `SELECT "id" FROM "warranty_line_items" ORDER BY 1`), []string{"l-live", "l-recent"}; !slices.Equal(got, want) {
				t.Fatalf("line items %v, want %v", got, want)
			}
			if got := column(t, database, `SELECT "id" FROM "customers"`); len(got) != 0 {
				t.Fatalf("%d customers left in the trash", len(got))
			}
			p := map[string]int{}
			for _, id := range column(t, database, `SELECT "record_id" FROM "events" WHERE "type" LIKE '%.purged'`) {
				p[id]++
			}
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

// seedTrash writes, straight to the tables of team 1, a trash for the
// janitor at now: a warranty and its line item trashed two hours ago
// (batch b1), another pair a minute ago (b2), a live pair, a line item
// trashed alone under the live warranty, and many customers trashed two
// hours ago one batch each — more than one statement's batch; it returns
// how many.
func seedTrash(t *testing.T, database *db.DB, now time.Time) int {
	t.Helper()
	ctx := context.Background()
	if _, err := auth.NewStore(database, 0).Team(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	old, recent := now.Add(-2*time.Hour).UnixMicro(), now.Add(-time.Minute).UnixMicro()
	exec := func(text string, args ...any) {
		t.Helper()
		if _, err := database.Exec(ctx, text, args...); err != nil {
			t.Fatal(err)
		}
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
	const many = trashBatch*2 + 7
	for i := range many {
		exec(`INSERT INTO "customers" ("id", "team_id", "version", "deleted_at", "trash_batch") VALUES (?, 1, 2, ?, ?)`,
			fmt.Sprintf("c-%04d", i), old, fmt.Sprintf("cb-%d", i))
	}
	return many
}

// column is the first column of every row query answers, as text.
func column(t *testing.T, database *db.DB, query string) []string {
	t.Helper()
	var got []string
	err := database.Each(context.Background(), -1, query, nil, func(rows *sql.Rows) error {
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

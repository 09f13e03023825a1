package db

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"records/internal/migrate"
	"records/internal/migrations"
)

// openQueued opens the SQLite database at path, migrated by the first
// upTo migrations (all when upTo < 0), with no checkpointer: the queue of
// the search index is indexed only when the test says.
func openQueued(t *testing.T, path string, upTo int) *DB {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, Config{URL: "sqlite:" + path})
	if err != nil {
		t.Fatal(err)
	}
	d.stopCheckpoints()
	d.stopCheckpoints = nil
	t.Cleanup(func() { d.Close() })
	set, err := migrations.For(migrate.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if upTo >= 0 {
		set = set[:upTo]
	}
	if _, err := migrate.Apply(ctx, d.SQL, migrate.SQLite, set); err != nil {
		t.Fatal(err)
	}
	writeSQL(t, d, `INSERT OR IGNORE INTO teams (id, name, created_at) VALUES (1, 'default', CURRENT_TIMESTAMP)`)
	return d
}

// queueState is what the index of returns holds: the records matching
// each word (by id), the records queued, and FTS5's integrity-check.
func queueState(t *testing.T, d *DB, words ...string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := d.SQL.ExecContext(ctx, `INSERT INTO returns_search(returns_search) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("the FTS5 index: %v", err)
	}
	ids := func(q string, args ...any) string {
		rows, err := d.SQL.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	var b strings.Builder
	for _, w := range words {
		b.WriteString(w + ": " + ids(`SELECT id FROM returns WHERE rowid IN (SELECT rowid FROM returns_search WHERE returns_search MATCH ?)`, w) + "; ")
	}
	b.WriteString("queued: " + ids(`SELECT id FROM returns WHERE rowid IN (SELECT rowid FROM returns_search_queue)`))
	return b.String()
}

func writeSQL(t *testing.T, d *DB, text string, args ...any) {
	t.Helper()
	if _, err := d.SQL.ExecContext(context.Background(), text, args...); err != nil {
		t.Fatal(err)
	}
}

// A record created is queued, not indexed; edited or deleted while queued,
// it is left to the batch or taken out of the queue (never a 'delete' of
// documents the index does not hold); once indexed, edits and deletes
// write the index as they come. A search's SearchReady indexes the queue,
// a bulk create's records are indexed in one batch, and the index stays
// whole throughout.
func TestSearchQueueFollowsEdits(t *testing.T) {
	ctx := context.Background()
	d := openQueued(t, filepath.Join(t.TempDir(), "q.db"), -1)
	check := func(want string, words ...string) {
		t.Helper()
		if got := queueState(t, d, words...); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	writeSQL(t, d, `INSERT INTO returns (id, team_id, description) VALUES ('r-1', 1, 'quokka'), ('r-2', 1, 'quokka')`)
	check("quokka: ; queued: r-1 r-2", "quokka")
	writeSQL(t, d, `UPDATE returns SET description = 'wombat' WHERE id = 'r-1'`)
	writeSQL(t, d, `DELETE FROM returns WHERE id = 'r-2'`)
	check("quokka: ; wombat: ; queued: r-1", "quokka", "wombat")
	if err := d.SearchReady(ctx, nil, "returns"); err != nil {
		t.Fatal(err)
	}
	check("quokka: ; wombat: r-1; queued: ", "quokka", "wombat")
	writeSQL(t, d, `INSERT INTO returns (id, team_id, description) VALUES ('r-3', 1, 'wombat')`)
	writeSQL(t, d, `UPDATE returns SET description = 'numbat' WHERE id = 'r-1'`)
	check("numbat: r-1; wombat: ; queued: r-3", "numbat", "wombat")
	writeSQL(t, d, `DELETE FROM returns WHERE id = 'r-1'`)
	check("numbat: ; wombat: ; queued: r-3", "numbat", "wombat")
	var bulk []string
	for i := range 300 {
		bulk = append(bulk, "('b-"+strconv.Itoa(i)+"', 1, 'bilby')")
	}
	writeSQL(t, d, `INSERT INTO returns (id, team_id, description) VALUES `+strings.Join(bulk, ", "))
	if ran, err := d.indexQueues(ctx); err != nil || ran != 1 {
		t.Fatalf("the checkpointer's pass ran %d batches (%v), want 1", ran, err)
	}
	if got := queueState(t, d, "wombat"); got != "wombat: r-3; queued: " {
		t.Fatal(got)
	}
	var n int
	if err := d.SQL.QueryRowContext(ctx, `SELECT count(*) FROM returns_search WHERE returns_search MATCH 'bilby'`).Scan(&n); err != nil || n != 300 {
		t.Fatalf("bilby matches %d documents (%v), want 300", n, err)
	}
}

// The queue is a table: records queued when the process stopped are
// indexed by the next one's checkpointer (or its first search).
func TestSearchQueueSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	d := openQueued(t, path, -1)
	writeSQL(t, d, `INSERT INTO returns (id, team_id, rma) VALUES ('r-1', 1, 'quokka'), ('r-2', 1, 'quokka')`)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = openQueued(t, path, -1)
	if got := queueState(t, d, "quokka"); got != "quokka: ; queued: r-1 r-2" {
		t.Fatal(got)
	}
	if ran, err := d.indexQueues(context.Background()); err != nil || ran != 1 {
		t.Fatalf("the checkpointer's pass ran %d batches (%v), want 1", ran, err)
	}
	if got := queueState(t, d, "quokka"); got != "quokka: r-1 r-2; queued: " {
		t.Fatal(got)
	}
}

// The migration that makes the queues fills the index of a table whose
// records were indexed by the triggers before it, and queues none.
func TestSearchQueueMigrationIndexesEveryRecord(t *testing.T) {
	set, err := migrations.For(migrate.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(set, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_search_queue.sql") })
	path := filepath.Join(t.TempDir(), "q.db")
	d := openQueued(t, path, before)
	writeSQL(t, d, `INSERT INTO returns (id, team_id, rma) VALUES ('r-1', 1, 'quokka'), ('r-2', 1, 'quokka')`)
	if _, err := migrate.Apply(context.Background(), d.SQL, migrate.SQLite, set); err != nil {
		t.Fatal(err)
	}
	if got := queueState(t, d, "quokka"); got != "quokka: r-1 r-2; queued: " {
		t.Fatal(got)
	}
}

// A queue longer than a batch is indexed searchBatchRows records at a
// time: the checkpointer's pass runs one batch a table, leaving the rest
// for its next ticks, and a search's SearchReady runs them all. The bounded
// batch reads the queue's range by its key, never the whole queue or
// table; a database migrated before the queue's view carried its entries'
// rowids indexes the whole queue in one batch, as before.
func TestSearchQueueIndexesInBoundedBatches(t *testing.T) {
	ctx := context.Background()
	fill := func(d *DB, n int) {
		var rows []string
		for i := range n {
			rows = append(rows, "('b-"+strconv.Itoa(i)+"', 1, 'bilby')")
		}
		writeSQL(t, d, `INSERT INTO returns (id, team_id, description) VALUES `+strings.Join(rows, ", "))
	}
	count := func(d *DB, q string) int {
		var n int
		if err := d.SQL.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	matches := `SELECT count(*) FROM returns_search WHERE returns_search MATCH 'bilby'`
	queued := `SELECT count(*) FROM returns_search_queue`

	d := openQueued(t, filepath.Join(t.TempDir(), "q.db"), -1)
	fill(d, 2*searchBatchRows+500)
	if ran, err := d.indexQueues(ctx); err != nil || ran != 1 {
		t.Fatalf("the checkpointer's pass ran %d batches (%v), want 1", ran, err)
	}
	if m, q := count(d, matches), count(d, queued); m != searchBatchRows || q != searchBatchRows+500 {
		t.Fatalf("after one pass %d indexed and %d queued, want %d and %d", m, q, searchBatchRows, searchBatchRows+500)
	}
	if err := d.SearchReady(ctx, nil, "returns"); err != nil {
		t.Fatal(err)
	}
	if m, q := count(d, matches), count(d, queued); m != 2*searchBatchRows+500 || q != 0 {
		t.Fatalf("after SearchReady %d indexed and %d queued, want %d and 0", m, q, 2*searchBatchRows+500)
	}
	queueState(t, d) // FTS5's integrity-check

	b, ok, err := d.queues.batch(ctx, d, "returns")
	if err != nil || !ok || b.bound == "" {
		t.Fatalf("returns' batch %+v (%v, %v): want a bounded one", b, ok, err)
	}
	var plan []string
	err = d.Each(ctx, -1, `EXPLAIN QUERY PLAN `+b.indexTo, []any{int64(1)}, func(rows *sql.Rows) error {
		var id, parent, unused int
		var detail string
		err := rows.Scan(&id, &parent, &unused, &detail)
		plan = append(plan, detail)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each of the record's three documents: the queue's range, then the
	// record by its rowid.
	for _, step := range plan {
		if step == "SCAN returns" || step == "SEARCH returns USING INTEGER PRIMARY KEY (rowid<?)" {
			t.Fatalf("a bounded batch reads %q; its plan:\n%s", step, strings.Join(plan, "\n"))
		}
	}
	if n := strings.Count(strings.Join(plan, "\n"), "SEARCH returns_search_queue USING INTEGER PRIMARY KEY (rowid<?)"); n != 3 {
		t.Fatalf("a bounded batch reads the queue by its key %d times, want 3; its plan:\n%s", n, strings.Join(plan, "\n"))
	}

	set, err := migrations.For(migrate.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(set, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_search_batches_bounded.sql") })
	old := openQueued(t, filepath.Join(t.TempDir(), "old.db"), before)
	fill(old, searchBatchRows+1)
	if ran, err := old.indexQueues(ctx); err != nil || ran != 1 {
		t.Fatalf("the checkpointer's pass ran %d batches (%v), want 1", ran, err)
	}
	if m, q := count(old, matches), count(old, queued); m != searchBatchRows+1 || q != 0 {
		t.Fatalf("before the bound's migration %d indexed and %d queued, want %d and 0", m, q, searchBatchRows+1)
	}
}

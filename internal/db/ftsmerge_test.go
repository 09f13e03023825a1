package db

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// ftsDocs makes an FTS5 table as the generator makes the search tables
// (contentless, no column sizes) and writes n documents into it, each its
// own autocommitted statement as the service's creates are: each a segment
// of its own, left to FTS5's automerge. options are more FTS5 options.
func ftsDocs(t *testing.T, pool interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, table, options string, n int) {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.ExecContext(ctx, `CREATE VIRTUAL TABLE "`+table+`" USING fts5(body, content=''`+options+
		`, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("Returned widget %d: the box arrived intact", i)
		if i%50 == 0 {
			body += " from zanzibar"
		}
		if _, err := pool.ExecContext(ctx, `INSERT INTO "`+table+`"(rowid, body) VALUES (?, ?)`, i, body); err != nil {
			t.Fatal(err)
		}
	}
}

// ftsAnswers are what searches of table answer: the rowids matching
// each of a few queries, and which of a few rowids match widget when
// looked up one by one (as query.Probe looks records up).
func ftsAnswers(t *testing.T, pool *sql.DB, table string) [][]int64 {
	t.Helper()
	var out [][]int64
	read := func(q string, args ...any) {
		rows, err := pool.Query(q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		out = append(out, ids)
	}
	for _, q := range []string{`widget`, `zanzibar`, `"widget 150"`, `widget NOT zanzibar`, `arrive`} {
		read(`SELECT rowid FROM "`+table+`" WHERE "`+table+`" MATCH ? ORDER BY rowid DESC`, q)
	}
	read(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 7 FROM n WHERE i < 400)
SELECT i FROM n WHERE EXISTS (SELECT 1 FROM "` + table + `" WHERE rowid = n.i AND "` + table + `" MATCH 'widget')`)
	return out
}

// A table written one document a commit is left in several segments;
// merge passes bring each to one, a step at a time, and the searches
// answer as before. Both structure records are read: the first format,
// and the second of tables that keep tombstones (contentless_delete).
func TestFTSMergePassesLeaveOneSegment(t *testing.T) {
	_, pool := notes(t)
	ctx := context.Background()
	tables := []string{"returns_search", "cases_search"}
	ftsDocs(t, pool, tables[0], ", columnsize=0", 300)
	ftsDocs(t, pool, tables[1], ", contentless_delete=1", 300)
	var before [][][]int64
	for _, table := range tables {
		shape, err := ReadFTSShape(ctx, pool, table)
		if err != nil {
			t.Fatal(err)
		}
		if shape.Segments() < 2 || !shape.wantsMerge(false) {
			t.Fatalf("%s: %d segments (levels %v, pages %v), wants a merge: %v; want several, wanting one",
				table, shape.Segments(), shape.Levels, shape.Pages, shape.wantsMerge(false))
		}
		before = append(before, ftsAnswers(t, pool, table))
	}
	m := &ftsMerger{pool: pool, lock: newFIFOLock()}
	passes := 0
	for ; passes < 1000; passes++ {
		steps, err := m.pass(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if steps == 0 {
			break
		}
	}
	for i, table := range tables {
		shape, err := ReadFTSShape(ctx, pool, table)
		if err != nil {
			t.Fatal(err)
		}
		if shape.Segments() != 1 || shape.wantsMerge(false) {
			t.Errorf("%s after %d passes: %d segments (levels %v), wants a merge: %v; want one, merged",
				table, passes, shape.Segments(), shape.Levels, shape.wantsMerge(false))
		}
		if after := ftsAnswers(t, pool, table); !slices.EqualFunc(before[i], after, slices.Equal) {
			t.Errorf("%s: the searches answer %v after the merge, %v before", table, after, before[i])
		}
	}
	if steps, err := m.pass(ctx, true); steps != 0 || err != nil {
		t.Errorf("a pass over merged tables: %d steps, %v; want none", steps, err)
	}
}

// The service's checkpointer merges the FTS5 tables its writes left in
// segments, once they are written (whenever that is: no time is asserted,
// only that it happens).
func TestCheckpointerMergesFTSTables(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Config{URL: "sqlite:" + filepath.Join(t.TempDir(), "search.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ftsDocs(t, db.SQL, "returns_search", ", columnsize=0", 0)
	for i := 1; i <= 200; i++ {
		err := db.Write(ctx, false, func(w *Writer) error {
			_, err := w.Exec(ctx, `INSERT INTO "returns_search"(rowid, body) VALUES (?, 'widget')`, i)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	shape, _ := ReadFTSShape(ctx, db.SQL, "returns_search")
	t.Logf("after the writes: levels %v pages %v merging %v", shape.Levels, shape.Pages, shape.Merging)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if shape, err = ReadFTSShape(ctx, db.SQL, "returns_search"); err != nil {
			t.Fatal(err)
		}
		if shape.Segments() == 1 {
			return
		}
	}
	t.Fatalf("the table is still in %d segments (levels %v)", shape.Segments(), shape.Levels)
}

func TestFTSStructureCutShort(t *testing.T) {
	for _, rec := range [][]byte{nil, {0, 0, 0, 1}, {0, 0, 0, 1, 1, 2, 0x81}, {0, 0, 0, 1, 1, 1, 1, 0, 1, 5}} {
		if _, err := decodeFTSStructure(rec); err == nil {
			t.Errorf("%x: decoded; want an error", rec)
		}
	}
}

// A table whose small segments hold less than half its largest is left
// while the process writes, and merged once it is quiet if they hold 1/64.
func TestFTSTailWantsAMerge(t *testing.T) {
	for _, c := range []struct {
		pages         []int
		merging       bool
		busy, quietly bool
	}{
		{nil, false, false, false},
		{[]int{2000}, false, false, false},
		{[]int{2000}, true, true, true},
		{[]int{2000, 1, 1}, false, false, false},
		{[]int{1900, 77, 20, 5, 1}, false, false, true},
		{[]int{1000, 300, 200}, false, true, true},
		{[]int{1000, 300, 199}, false, false, true},
		{[]int{1000, 1074, 40}, false, true, true},
	} {
		s := FTSShape{Pages: c.pages, Merging: c.merging}
		if got := s.wantsMerge(false); got != c.busy {
			t.Errorf("pages %v, merging %v, writing: wants a merge %v; want %v", c.pages, c.merging, got, c.busy)
		}
		if got := s.wantsMerge(true); got != c.quietly {
			t.Errorf("pages %v, merging %v, quiet: wants a merge %v; want %v", c.pages, c.merging, got, c.quietly)
		}
	}
}

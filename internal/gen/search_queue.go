package gen

import (
	"strings"

	"records/internal/spec"
)

// SQLite indexes new records after their commits, in batches (issue 29,
// docs/performance.md): each commit that writes an FTS5 table flushes its
// words into a segment of its own, some six pages, which cost a create
// more than the record itself; a batch of a hundred writes one. So the
// insert trigger notes the new rowid in the table's queue
// (spec.SearchQueue), the view spec.SearchPending makes the documents of
// every queued record — the rule of the documents is here alone, the
// service runs a generic statement (db.searchQueues) — and a search waits
// for the queue of its table to be indexed. Edits and deletes of an
// indexed record write the index as they did; of a queued one, they
// leave it to the batch (which reads the values as they are then) or
// take it out of the queue: a contentless FTS5 table's 'delete' of a
// document it never had would corrupt it.

// sqliteQueue is the queue table, the view of its documents and the three
// triggers of e's table, by name, each statement as sqlite_master keeps
// it; list is the FTS5 table's columns and docs each document's rowid and
// values, written of row r.
func sqliteQueue(e eventTable, list string, docs func(r string) []string) [][2]string {
	t, fts := spec.Ident(e.table.Name), spec.Ident(spec.SearchTable(e.table.Name))
	queue, pending := spec.SearchQueue(e.table.Name), spec.SearchPending(e.table.Name)
	q := spec.Ident(queue)
	values := func(r, command string) string {
		var rows []string
		for _, d := range docs(r + ".") {
			rows = append(rows, "("+command+d+")")
		}
		return `VALUES ` + strings.Join(rows, ", ")
	}
	insert := ` INSERT INTO ` + fts + `("rowid", ` + list + `) ` + values("NEW", "") + `;`
	head := ` INSERT INTO ` + fts + `(` + fts + `, "rowid", ` + list + `) `
	queued := `EXISTS (SELECT 1 FROM ` + q + ` WHERE "rowid" = OLD."rowid")`
	// Each document carries its queue entry's rowid last (spec.SearchQueued),
	// so that a batch bounded by it reads the queue's range by its key: the
	// documents' own rowids are sums that no index serves. CROSS JOIN keeps
	// the queue the outer loop: with a plain join SQLite moved the bound to
	// the table's rowids, a range from the table's first record.
	var view []string
	for _, d := range docs(t + ".") {
		view = append(view, `SELECT `+d+`, `+q+`."rowid" FROM `+q+` CROSS JOIN `+t+` ON `+t+`."rowid" = `+q+`."rowid"`)
	}
	trigger := "search_" + e.table.Name
	return [][2]string{
		{queue, `CREATE TABLE ` + q + `("rowid" INTEGER PRIMARY KEY)`},
		{pending, `CREATE VIEW ` + spec.Ident(pending) + `("rowid", ` + list + `, ` + spec.Ident(spec.SearchQueued) + `) AS ` + strings.Join(view, ` UNION ALL `)},
		{trigger + "_insert", `CREATE TRIGGER ` + spec.Ident(trigger+"_insert") + ` AFTER INSERT ON ` + t +
			` BEGIN INSERT INTO ` + q + `("rowid") VALUES (NEW."rowid"); END`},
		{trigger + "_delete", `CREATE TRIGGER ` + spec.Ident(trigger+"_delete") + ` AFTER DELETE ON ` + t + ` BEGIN` +
			head + `SELECT * FROM (` + values("OLD", "'delete', ") + `) WHERE NOT ` + queued + `;` +
			` DELETE FROM ` + q + ` WHERE "rowid" = OLD."rowid"; END`},
		{trigger + "_update", `CREATE TRIGGER ` + spec.Ident(trigger+"_update") + ` AFTER UPDATE OF ` + list + ` ON ` + t +
			` WHEN NOT ` + queued + ` BEGIN` + head + values("OLD", "'delete', ") + `;` + insert + ` END`},
	}
}

// dropSearchObject is the statement dropping a search object of
// sqliteSearch by its name.
func dropSearchObject(name string) string {
	_, kind := searchObjectKind(name)
	return `DROP ` + kind + ` IF EXISTS ` + spec.Ident(name)
}

// searchDropRank orders the drops of search objects: triggers, then
// views, then tables.
func searchDropRank(name string) int {
	rank, _ := searchObjectKind(name)
	return rank
}

// searchObjectKind tells a search object of sqliteSearch by its name: its
// kind, and its rank among the drops (what names another goes first).
func searchObjectKind(name string) (int, string) {
	switch {
	case strings.HasPrefix(name, "search_"):
		return 0, "TRIGGER"
	case strings.HasSuffix(name, spec.SearchTableSuffix+spec.SearchPendingSuffix):
		return 1, "VIEW"
	}
	return 2, "TABLE"
}

package spec

import "strings"

// The databases, named as ent names their dialects. One name serves every
// notion of which database this is: the migration set applied
// (migrate.SQLite, migrate.Postgres), the open database's Dialect (package
// db, whose Postgres() asks it), and the SQL a list's filter compiles to
// (query.Dialect).
const (
	SQLite   = "sqlite3"
	Postgres = "postgres"
)

// WriteIdent writes name to b as an SQL identifier: in double quotes, any
// double quote in it doubled, as both databases read identifiers.
func WriteIdent(b *strings.Builder, name string) {
	b.WriteByte('"')
	if strings.Contains(name, `"`) {
		name = strings.ReplaceAll(name, `"`, `""`)
	}
	b.WriteString(name)
	b.WriteByte('"')
}

// Ident is name as an SQL identifier (see WriteIdent).
func Ident(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	WriteIdent(&b, name)
	return b.String()
}

// The search index of a resource (DESIGN §16): on PostgreSQL a tsvector
// column of its table, SearchColumn, kept by a trigger; on SQLite an FTS5
// table beside it, named by SearchTable.
const (
	SearchColumn      = "records_search"
	SearchTableSuffix = "_search"
)

// PlanEachTime begins a statement's text that is never prepared: each
// time it runs, PostgreSQL plans it with its parameters' values (a custom
// plan), where a prepared statement's generic plan would not see them — a
// search's words, whose frequency decides how best to read the matches.
const PlanEachTime = "/* planned each time */ "

// SearchClassColumn is the PostgreSQL column searching the members marked
// with weight class or heavier ("B": those marked A or B), beside
// SearchColumn, which searches them all.
func SearchClassColumn(class string) string { return SearchColumn + "_" + strings.ToLower(class) }

// SearchTable is the SQLite FTS5 table searching table.
func SearchTable(table string) string { return table + SearchTableSuffix }

// SQLite indexes a record after its commit, in batches (DESIGN §16): its
// insert trigger notes its rowid in the queue table SearchQueue (one
// column, "rowid"), and a batch writes the documents the view
// SearchPending makes of every queued record — its columns the FTS5
// table's, "rowid" first, then SearchQueued — into SearchTable, then
// empties the queue.
const (
	SearchQueueSuffix   = "_queue"
	SearchPendingSuffix = "_pending"
	// SearchQueued is SearchPending's last column: the queue entry's
	// rowid, by which a batch takes a bounded part of the queue.
	SearchQueued = "_queued"
)

// SearchQueue is the SQLite table of table's records not yet indexed.
func SearchQueue(table string) string { return SearchTable(table) + SearchQueueSuffix }

// SearchPending is the SQLite view of the documents of table's queued
// records (SearchQueue).
func SearchPending(table string) string { return SearchTable(table) + SearchPendingSuffix }

// SearchRowids bounds the rowids of a table SQLite searches: its FTS5
// table (SearchTable) holds, for each record, the document of every
// searchable member at the record's rowid, below SearchRowids, and the
// document of each weight class's members at SearchClassRowid(class)
// plus the record's rowid — one table, so that a write flushes one FTS5
// index, not one a class, and a class is read by a range of rowids.
// SQLite gives a record the largest rowid plus one: 2^40 is some 10^12
// records written.
const SearchRowids = int64(1) << 40

// SearchClassRowid is where the documents of the members marked with
// weight class ("A" to "D") or heavier begin in a SQLite FTS5 table
// (SearchRowids).
func SearchClassRowid(class string) int64 {
	return int64(1+strings.Index("ABCD", strings.ToUpper(class))) * SearchRowids
}

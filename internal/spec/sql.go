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

// The search index of a resource (DESIGN §16): on PostgreSQL a generated
// column of its table, SearchColumn; on SQLite an FTS5 table beside it,
// named by SearchTable.
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

// SearchClassTable is the SQLite FTS5 table searching table's members
// marked with weight class or heavier, beside SearchTable.
func SearchClassTable(table, class string) string {
	return SearchTable(table) + "_" + strings.ToLower(class)
}

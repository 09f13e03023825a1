package gen

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"

	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"records/internal/annotation"
	"records/internal/fold"
	"records/internal/migrate"
	"records/internal/spec"
)

// The search index of a resource with searchable members (DESIGN §16):
//
//   - PostgreSQL: a stored generated tsvector column, spec.SearchColumn,
//     each member's words weighted by its annotation and folded by
//     records_fold (package fold), made by records_search_vector
//     (pgSearchFunctions), with a GIN index; the column's comment
//     holds a digest of its definition, so that a changed definition (a
//     member marked, unmarked or reweighted) is seen and the column made
//     again.
//   - SQLite: a contentless FTS5 table, spec.SearchTable, holding the
//     documents of the resource's records (sqliteSearch), kept by three
//     triggers and filled from the table whenever they are made.
//
// The migration engine never sees these (hideSearch), and they are
// compared here, as the event triggers are.

// searchColumn is one searchable member's column and weight.
type searchColumn struct{ name, weight string }

// pgFunction is a function the search columns of PostgreSQL call.
type pgFunction struct{ name, head, body string }

// pgSearchFunctions are the functions of the search columns, each written
// in PL/pgSQL: a generated column's expression is rebuilt for every
// statement that writes the table, and a SQL function in it is inlined
// then — its body parsed again, the fold table's 1.2 KB literals with it,
// once per member and class, twelve times a return — where a PL/pgSQL
// function's plan is kept by the session (docs/performance.md, index
// upkeep on PostgreSQL).
//
// records_fold folds the accents of a text (pgFold, package fold).
//
// records_search_vector is a search column's words: each member's text
// folded, parsed as English and given the weight of the letter of weights
// at its position, concatenated in the members' order (the tsvector the
// column held as one expression of setweight(…) || setweight(…), byte for
// byte). It folds the text itself rather than call records_fold, whose
// name it would find by the search path of the statement that writes:
// pg_dump's restore runs with an empty one.
func pgSearchFunctions() []pgFunction {
	return []pgFunction{
		{"records_fold", `records_fold(text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE`,
			`BEGIN RETURN ` + pgFold("$1") + `; END`},
		{pgVectorFunction, pgVectorFunction + `(weights text, VARIADIC members text[]) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE`,
			`DECLARE v tsvector := ''; t text; BEGIN FOR i IN 1..cardinality(members) LOOP t := coalesce(members[i], ''); ` +
				`v := v || setweight(to_tsvector('english'::regconfig, ` + pgFold("t") + `), substr(weights, i, 1)::"char"); ` +
				`END LOOP; RETURN v; END`},
	}
}

// pgFold is the expression folding the accents of the text x. Text of
// ASCII alone (as many bytes as characters) has nothing to fold and is
// answered as it is: translate walks its whole table for every character,
// which made a long text's write cost grow with the table's length.
func pgFold(x string) string {
	from, to := fold.Table()
	return `CASE WHEN octet_length(` + x + `) = char_length(` + x + `) THEN ` + x + ` ELSE translate(` + x + `, '` + from + `', '` + to + `') END`
}

// pgVectorFunction makes a search column's words (pgSearchFunctions).
const pgVectorFunction = "records_search_vector"

// pgSearchExpr is the expression of a table's search column: the members'
// weights, one letter each, then the members.
func pgSearchExpr(cols []searchColumn) string {
	var weights strings.Builder
	members := make([]string, len(cols))
	for i, c := range cols {
		weights.WriteString(c.weight)
		members[i] = spec.Ident(c.name)
	}
	return pgVectorFunction + `('` + weights.String() + `', ` + strings.Join(members, ", ") + `)`
}

// signature is the digest a search column's comment holds: of its
// expression and of the functions it calls.
func signature(expr string) string {
	h := sha256.New()
	for _, f := range pgSearchFunctions() {
		h.Write([]byte(f.head + "\n" + f.body + "\n"))
	}
	h.Write([]byte(expr))
	return "records search " + hex.EncodeToString(h.Sum(nil)[:8])
}

// pgSearchFunctionsChanges are the statements making the functions of
// pgSearchFunctions that db lacks or has otherwise, "" when none.
func pgSearchFunctionsChanges(ctx context.Context, db *sql.DB) (string, error) {
	have, err := namedTexts(ctx, db, `SELECT p.proname, l.lanname || ' ' || p.prosrc FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
WHERE p.proname LIKE 'records\_%' AND n.nspname = current_schema()`)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range pgSearchFunctions() {
		if have[f.name] == "plpgsql "+f.body {
			continue
		}
		b.WriteString("-- The search columns' function " + f.name + "\n")
		b.WriteString("CREATE OR REPLACE FUNCTION " + f.head + " AS $records$" + f.body + "$records$;\n")
	}
	return b.String(), nil
}

// searchChanges are the statements that bring the search indexes of db to
// those events need (and, on PostgreSQL, the index builds that go apart).
func searchChanges(ctx context.Context, dialect string, db *sql.DB, events []eventTable) (string, string, error) {
	if dialect == migrate.Postgres {
		return pgSearchChanges(ctx, db, events)
	}
	s, err := sqliteSearchChanges(ctx, db, events)
	return s, "", err
}

func pgSearchChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, string, error) {
	// The search columns' comments, by "table.column".
	have, err := namedTexts(ctx, db, `SELECT c.relname || '.' || a.attname, coalesce(col_description(c.oid, a.attnum), '')
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE (a.attname = $1 OR a.attname LIKE $2) AND c.relkind = 'r' AND NOT a.attisdropped AND n.nspname = current_schema()`,
		spec.SearchColumn, strings.ReplaceAll(spec.SearchColumn+"_", "_", `\_`)+"_")
	if err != nil {
		return "", "", err
	}
	var b, builds strings.Builder
	functions, err := pgSearchFunctionsChanges(ctx, db)
	if err != nil {
		return "", "", err
	}
	for _, e := range events {
		var changed []pgColumn
		for _, c := range pgSearchColumns(e.search) {
			key := e.table.Name + "." + c.name
			comment, ok := have[key]
			delete(have, key)
			if ok && comment == signature(c.expr) && functions == "" {
				continue
			}
			c.there = ok
			changed = append(changed, c)
		}
		if len(changed) > 0 {
			b.WriteString(functions) // before the first column that calls them
			functions = ""
			pgSearchTable(&b, &builds, e.table.Name, changed)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(have)) {
		table, col, _ := strings.Cut(key, ".")
		b.WriteString("-- " + table + " searches no member by " + col + " any more\n")
		b.WriteString(`ALTER TABLE ` + spec.Ident(table) + ` DROP COLUMN ` + spec.Ident(col) + ";\n")
	}
	return b.String(), builds.String(), nil
}

// pgColumn is a search column of a table and its expression; there tells
// whether the table has it already (to be made again).
type pgColumn struct {
	name, members, expr string
	there               bool
}

// pgSearchColumns are the search columns of a table searching cols: one
// per weight class but the last (the members of that weight or heavier,
// spec.SearchClassColumn), whose tier a search reads from its own GIN
// index and statistics, then spec.SearchColumn over them all.
func pgSearchColumns(cols []searchColumn) []pgColumn {
	if len(cols) == 0 {
		return nil
	}
	var out []pgColumn
	for _, c := range searchClasses(cols) {
		out = append(out, pgColumn{name: spec.SearchClassColumn(c.class), members: describeSearch(c.members), expr: pgSearchExpr(c.members)})
	}
	return append(out, pgColumn{name: spec.SearchColumn, members: describeSearch(cols), expr: pgSearchExpr(cols)})
}

// pgSearchTable writes the statement making the search columns cols of
// table (dropping those there are first), and their index builds. It is
// one ALTER TABLE: adding a stored generated column rewrites the table,
// once for all of them rather than once a column.
func pgSearchTable(b, builds *strings.Builder, table string, cols []pgColumn) {
	t := spec.Ident(table)
	var alter []string
	for _, c := range cols {
		col := spec.Ident(c.name)
		b.WriteString("-- Search " + table + " by " + c.members + " in " + c.name + "\n")
		if c.there {
			alter = append(alter, "DROP COLUMN "+col)
		}
		alter = append(alter, "ADD COLUMN "+col+" tsvector GENERATED ALWAYS AS ("+c.expr+") STORED")
		index := spec.Ident(table + "_" + c.name)
		builds.WriteString("-- Index the search of " + table + " in " + c.name + "\n")
		builds.WriteString("DROP INDEX CONCURRENTLY IF EXISTS " + index + ";\n")
		builds.WriteString("CREATE INDEX CONCURRENTLY " + index + " ON " + t + " USING GIN (" + col + ");\n")
	}
	b.WriteString("ALTER TABLE " + t + "\n  " + strings.Join(alter, ",\n  ") + ";\n")
	for _, c := range cols {
		b.WriteString(`COMMENT ON COLUMN ` + t + `.` + spec.Ident(c.name) + ` IS '` + signature(c.expr) + "';\n")
	}
}

// describeSearch lists the columns and weights, for a comment.
func describeSearch(cols []searchColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.name + " (" + c.weight + ")"
	}
	return strings.Join(parts, ", ")
}

// sqliteSearch is the FTS5 table and the triggers of one table, each
// statement as sqlite_master keeps it, by name, and the statements
// filling the table anew. One contentless table (spec.SearchTable) holds
// for each record the document of every searchable member, at the
// record's rowid, and one of each weight class's members but the last
// (searchClasses), at spec.SearchClassRowid(class) on: a relevance tier
// reads its class as a range of rowids, where a word common in the last
// class alone has no entry — a column filter would read all its matches
// to find that out. One table, not one a class: every commit writing a
// record flushes each FTS5 table it touched into a segment of its own,
// some six pages a table, which was most of what the index cost a
// create (docs/performance.md). Contentless, since a class's rowids are
// no record's; no column sizes, which nothing reads.
func sqliteSearch(e eventTable) (table [2]string, triggers [][2]string, fill []string) {
	t, name := spec.Ident(e.table.Name), spec.SearchTable(e.table.Name)
	fts := spec.Ident(name)
	idents := make([]string, len(e.search))
	for i, c := range e.search {
		idents[i] = spec.Ident(c.name)
	}
	list := strings.Join(idents, ", ")
	table = [2]string{name, `CREATE VIRTUAL TABLE ` + fts + ` USING fts5(` + list +
		`, content='', columnsize=0, tokenize='porter unicode61 remove_diacritics 2')`}
	// docs are each document's rowid and values, written of row r.
	docs := func(r string) []string {
		out := []string{r + `"rowid", ` + r + strings.Join(idents, ", "+r)}
		for _, c := range searchClasses(e.search) {
			vals := []string{r + `"rowid" + ` + strconv.FormatInt(spec.SearchClassRowid(c.class), 10)}
			for i, col := range e.search {
				if slices.Contains(c.members, col) {
					vals = append(vals, r+idents[i])
				} else {
					vals = append(vals, "NULL")
				}
			}
			out = append(out, strings.Join(vals, ", "))
		}
		return out
	}
	write := func(r, command string) string {
		var rows []string
		for _, d := range docs(r + ".") {
			rows = append(rows, "("+command+d+")")
		}
		head := ` INSERT INTO ` + fts + `("rowid", `
		if command != "" {
			head = ` INSERT INTO ` + fts + `(` + fts + `, "rowid", `
		}
		return head + list + `) VALUES ` + strings.Join(rows, ", ") + `;`
	}
	insert, remove := write("NEW", ""), write("OLD", "'delete', ")
	for _, d := range docs("") {
		fill = append(fill, `INSERT INTO `+fts+`("rowid", `+list+`) SELECT `+d+` FROM `+t)
	}
	trigger := "search_" + e.table.Name
	triggers = [][2]string{
		{trigger + "_insert", `CREATE TRIGGER ` + spec.Ident(trigger+"_insert") + ` AFTER INSERT ON ` + t + ` BEGIN` + insert + ` END`},
		{trigger + "_delete", `CREATE TRIGGER ` + spec.Ident(trigger+"_delete") + ` AFTER DELETE ON ` + t + ` BEGIN` + remove + ` END`},
		{trigger + "_update", `CREATE TRIGGER ` + spec.Ident(trigger+"_update") + ` AFTER UPDATE OF ` + list + ` ON ` + t +
			` BEGIN` + remove + insert + ` END`},
	}
	return table, triggers, fill
}

// searchClass is a weight class of a table's searchable members: those
// marked with class or heavier.
type searchClass struct {
	class   string
	members []searchColumn
}

// searchClasses are the weight classes of cols but the last (all of
// them), heaviest first: one per weight some member is marked with.
func searchClasses(cols []searchColumn) []searchClass {
	var out []searchClass
	for _, w := range annotation.SearchWeights {
		if !slices.ContainsFunc(cols, func(c searchColumn) bool { return c.weight == string(w) }) {
			continue
		}
		class := slices.DeleteFunc(slices.Clone(cols), func(c searchColumn) bool { return c.weight > string(w) })
		if len(class) < len(cols) {
			out = append(out, searchClass{string(w), class})
		}
	}
	return out
}

func sqliteSearchChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, error) {
	have, err := namedTexts(ctx, db, `SELECT name, sql FROM sqlite_master
WHERE type = 'trigger' AND name LIKE 'search\_%' ESCAPE '\' OR type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range events {
		if len(e.search) == 0 {
			continue
		}
		table, triggers, fill := sqliteSearch(e)
		same := true
		for _, o := range append([][2]string{table}, triggers...) {
			same = same && have[o[0]] == o[1]
			delete(have, o[0])
		}
		if same {
			continue
		}
		b.WriteString("-- Search " + e.table.Name + " by " + describeSearch(e.search) + "\n")
		for _, tr := range triggers {
			b.WriteString(`DROP TRIGGER IF EXISTS ` + spec.Ident(tr[0]) + ";\n")
		}
		b.WriteString(`DROP TABLE IF EXISTS ` + spec.Ident(table[0]) + ";\n")
		b.WriteString(table[1] + ";\n")
		for _, tr := range triggers {
			b.WriteString(tr[1] + ";\n")
		}
		// Made anew (or the table rebuilt, its rowids changed): read again.
		for _, f := range fill {
			b.WriteString(f + ";\n")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		if strings.HasPrefix(name, "search_") {
			b.WriteString(`DROP TRIGGER IF EXISTS ` + spec.Ident(name) + ";\n")
		} else {
			b.WriteString(`DROP TABLE IF EXISTS ` + spec.Ident(name) + ";\n")
		}
	}
	return b.String(), nil
}

// hideSearch keeps the search indexes out of the migration engine's view
// of the database, so that it neither drops them nor sees a difference:
// they are compared apart (searchChanges).
func hideSearch(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		var keep []*atlasschema.Table
		for _, t := range current.Tables {
			if isSearchTable(t.Name) {
				continue
			}
			t.Columns = slices.DeleteFunc(t.Columns, func(c *atlasschema.Column) bool { return isSearchColumn(c.Name) })
			t.Indexes = slices.DeleteFunc(t.Indexes, func(i *atlasschema.Index) bool {
				col, ok := strings.CutPrefix(i.Name, t.Name+"_")
				return ok && isSearchColumn(col)
			})
			keep = append(keep, t)
		}
		current.Tables = keep
		return next.Diff(current, desired)
	})
}

// isSearchColumn tells a PostgreSQL search column: spec.SearchColumn or
// a weight class's.
func isSearchColumn(name string) bool {
	class, ok := strings.CutPrefix(name, spec.SearchColumn+"_")
	return name == spec.SearchColumn || ok && len(class) == 1 && strings.Contains(annotation.SearchWeights, strings.ToUpper(class))
}

// isSearchTable tells an FTS5 table or one of its shadow tables.
func isSearchTable(name string) bool {
	for _, suffix := range []string{"", "_data", "_idx", "_docsize", "_config", "_content"} {
		base, ok := strings.CutSuffix(name, suffix)
		if ok && len(base) > 2 && base[len(base)-2] == '_' && strings.Contains(annotation.SearchWeights, strings.ToUpper(base[len(base)-1:])) {
			base = base[:len(base)-2] // a weight class's table
		}
		if ok && strings.HasSuffix(base, spec.SearchTableSuffix) {
			return true
		}
	}
	return false
}

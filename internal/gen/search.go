package gen

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"records/internal/fold"
	"records/internal/migrate"
	"records/internal/spec"
)

// The search index of a resource with searchable members (DESIGN §16):
//
//   - PostgreSQL: a stored generated tsvector column, spec.SearchColumn,
//     each member's words weighted by its annotation and folded by
//     records_fold (package fold), with a GIN index; the column's comment
//     holds a digest of its definition, so that a changed definition (a
//     member marked, unmarked or reweighted) is seen and the column made
//     again.
//   - SQLite: an FTS5 table, spec.SearchTable, over the resource's table
//     (external content, by rowid), kept by three triggers and rebuilt
//     from the table whenever they are made.
//
// The migration engine never sees these (hideSearch), and they are
// compared here, as the event triggers are.

// searchColumn is one searchable member's column and weight.
type searchColumn struct{ name, weight string }

// foldFunction is the body of records_fold on PostgreSQL. Text of ASCII
// alone (as many bytes as characters) has nothing to fold and is answered
// as it is: translate walks its whole table for every character, which
// made a long text's write cost grow with the table's length.
func foldFunction() string {
	from, to := fold.Table()
	return "SELECT CASE WHEN octet_length($1) = char_length($1) THEN $1 ELSE translate($1, '" + from + "', '" + to + "') END"
}

// pgSearchExpr is the expression of a table's search column.
func pgSearchExpr(cols []searchColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = `setweight(to_tsvector('english'::regconfig, records_fold(coalesce(` + spec.Ident(c.name) + `, ''))), '` + c.weight + `')`
	}
	return strings.Join(parts, " || ")
}

// signature is the digest a search column's comment holds.
func signature(expr string) string {
	sum := sha256.Sum256([]byte(foldFunction() + "\n" + expr))
	return "records search " + hex.EncodeToString(sum[:8])
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
	// The search column's comment, by table.
	have, err := namedTexts(ctx, db, `SELECT c.relname, coalesce(col_description(c.oid, a.attnum), '')
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE a.attname = $1 AND c.relkind = 'r' AND NOT a.attisdropped AND n.nspname = current_schema()`, spec.SearchColumn)
	if err != nil {
		return "", "", err
	}
	var b, builds strings.Builder
	var src sql.NullString
	err = db.QueryRowContext(ctx, `SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname = 'records_fold' AND n.nspname = current_schema()`).Scan(&src)
	if err != nil && err != sql.ErrNoRows {
		return "", "", err
	}
	col := spec.Ident(spec.SearchColumn)
	for _, e := range events {
		t := spec.Ident(e.table.Name)
		comment, ok := have[e.table.Name]
		delete(have, e.table.Name)
		if len(e.search) == 0 {
			continue
		}
		expr := pgSearchExpr(e.search)
		if ok && comment == signature(expr) && src.String == foldFunction() {
			continue
		}
		if !src.Valid || src.String != foldFunction() {
			b.WriteString("-- Fold the accents of searched words (package fold)\n")
			b.WriteString(`CREATE OR REPLACE FUNCTION records_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $records$` + foldFunction() + "$records$;\n")
			src = sql.NullString{String: foldFunction(), Valid: true}
		}
		b.WriteString("-- Search " + e.table.Name + " by " + describeSearch(e.search) + "\n")
		if ok {
			b.WriteString(`ALTER TABLE ` + t + ` DROP COLUMN ` + col + ";\n")
		}
		b.WriteString(`ALTER TABLE ` + t + ` ADD COLUMN ` + col + ` tsvector GENERATED ALWAYS AS (` + expr + ") STORED;\n")
		b.WriteString(`COMMENT ON COLUMN ` + t + `.` + col + ` IS '` + signature(expr) + "';\n")
		index := spec.Ident(e.table.Name + "_" + spec.SearchColumn)
		builds.WriteString("-- Index the search of " + e.table.Name + "\n")
		builds.WriteString("DROP INDEX CONCURRENTLY IF EXISTS " + index + ";\n")
		builds.WriteString("CREATE INDEX CONCURRENTLY " + index + " ON " + t + " USING GIN (" + col + ");\n")
	}
	for _, table := range slices.Sorted(maps.Keys(have)) {
		b.WriteString("-- " + table + " has no searchable member any more\n")
		b.WriteString(`ALTER TABLE ` + spec.Ident(table) + ` DROP COLUMN ` + col + ";\n")
	}
	return b.String(), builds.String(), nil
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
// statement as sqlite_master keeps it.
func sqliteSearch(e eventTable) (table string, triggers [][2]string) {
	t := spec.Ident(e.table.Name)
	fts := spec.Ident(spec.SearchTable(e.table.Name))
	cols := make([]string, len(e.search))
	for i, c := range e.search {
		cols[i] = spec.Ident(c.name)
	}
	list := strings.Join(cols, ", ")
	row := func(r string) string { return r + "." + strings.Join(cols, ", "+r+".") }
	table = `CREATE VIRTUAL TABLE ` + fts + ` USING fts5(` + list + `, content='` + e.table.Name +
		`', tokenize='porter unicode61 remove_diacritics 2')`
	insert := `INSERT INTO ` + fts + `("rowid", ` + list + `) VALUES (NEW."rowid", ` + row("NEW") + `);`
	remove := `INSERT INTO ` + fts + `(` + fts + `, "rowid", ` + list + `) VALUES ('delete', OLD."rowid", ` + row("OLD") + `);`
	name := "search_" + e.table.Name
	triggers = [][2]string{
		{name + "_insert", `CREATE TRIGGER ` + spec.Ident(name+"_insert") + ` AFTER INSERT ON ` + t + ` BEGIN ` + insert + ` END`},
		{name + "_delete", `CREATE TRIGGER ` + spec.Ident(name+"_delete") + ` AFTER DELETE ON ` + t + ` BEGIN ` + remove + ` END`},
		{name + "_update", `CREATE TRIGGER ` + spec.Ident(name+"_update") + ` AFTER UPDATE OF ` + list + ` ON ` + t +
			` BEGIN ` + remove + ` ` + insert + ` END`},
	}
	return table, triggers
}

func sqliteSearchChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, error) {
	have, err := namedTexts(ctx, db, `SELECT name, sql FROM sqlite_master
WHERE type = 'trigger' AND name LIKE 'search\_%' ESCAPE '\' OR type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range events {
		ftsName := spec.SearchTable(e.table.Name)
		if len(e.search) == 0 {
			continue
		}
		table, triggers := sqliteSearch(e)
		same := have[ftsName] == table
		delete(have, ftsName)
		for _, tr := range triggers {
			same = same && have[tr[0]] == tr[1]
			delete(have, tr[0])
		}
		if same {
			continue
		}
		b.WriteString("-- Search " + e.table.Name + " by " + describeSearch(e.search) + "\n")
		for _, tr := range triggers {
			b.WriteString(`DROP TRIGGER IF EXISTS ` + spec.Ident(tr[0]) + ";\n")
		}
		b.WriteString(`DROP TABLE IF EXISTS ` + spec.Ident(ftsName) + ";\n")
		b.WriteString(table + ";\n")
		for _, tr := range triggers {
			b.WriteString(tr[1] + ";\n")
		}
		// Made anew (or the table rebuilt, its rowids changed): read again.
		b.WriteString(`INSERT INTO ` + spec.Ident(ftsName) + `(` + spec.Ident(ftsName) + `) VALUES ('rebuild');` + "\n")
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
			t.Columns = slices.DeleteFunc(t.Columns, func(c *atlasschema.Column) bool { return c.Name == spec.SearchColumn })
			t.Indexes = slices.DeleteFunc(t.Indexes, func(i *atlasschema.Index) bool {
				return i.Name == t.Name+"_"+spec.SearchColumn
			})
			keep = append(keep, t)
		}
		current.Tables = keep
		return next.Diff(current, desired)
	})
}

// isSearchTable tells an FTS5 table or one of its shadow tables.
func isSearchTable(name string) bool {
	for _, suffix := range []string{"", "_data", "_idx", "_docsize", "_config", "_content"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && strings.HasSuffix(base, spec.SearchTableSuffix) {
			return true
		}
	}
	return false
}

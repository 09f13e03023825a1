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

	"records/internal/fold"
	"records/internal/query"
	"records/internal/spec"
)

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
// at its position, concatenated in the members' order, a gap between each
// two (pgMemberGap). It folds the text itself rather than call
// records_fold, whose name it would find by the search path of the
// statement that writes: pg_dump's restore runs with an empty one.
func pgSearchFunctions() []pgFunction {
	return []pgFunction{
		{"records_fold", `records_fold(text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE`,
			`BEGIN RETURN ` + pgFold("$1") + `; END`},
		{pgVectorFunction, pgVectorFunction + `(weights text, VARIADIC members text[]) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE`,
			`DECLARE v tsvector := ''; t text; ` + pgGapDecl + ` BEGIN FOR i IN 1..cardinality(members) LOOP t := coalesce(members[i], ''); ` +
				`IF i > 1 THEN v := v || gap; END IF; ` +
				`v := v || setweight(to_tsvector('english'::regconfig, ` + pgFold("t") + `), substr(weights, i, 1)::"char"); ` +
				`END LOOP; RETURN ` + pgGapless("v") + `; END`},
	}
}

// pgMemberGap is how many positions a search column puts between the
// last word of one member and the first of the next, beyond the one that
// would make them adjacent. PostgreSQL's tsvector || shifts the right
// side's positions by the left side's greatest: without a gap a quoted
// phrase of q ("<last word> <first word>", websearch's <->) matched
// across two members, where SQLite's FTS5 never matches a phrase across
// columns. A phrase's words are as many positions apart as the words,
// stop words and parts of joined words between them (websearch's <N>),
// each one character of q at least: twice MaxQ is beyond any phrase q can
// hold. The gaps' positions count toward PostgreSQL's cap of 16,383.
const pgMemberGap = 2 * query.MaxQ

// pgGapLexeme holds a gap while a search column's words are concatenated:
// a blank, which no word of a text or of a query is (the parser splits
// them at blanks), deleted once they are (pgGapless).
const pgGapLexeme = " "

// pgGapDecl declares gap, the tsvector of pgGapLexeme alone at position
// pgMemberGap: concatenated after a member's words, it puts the next
// member's words pgMemberGap positions further.
var pgGapDecl = `gap tsvector := '''` + pgGapLexeme + `'':` + strconv.Itoa(pgMemberGap) + `';`

// pgGapless is the expression of the tsvector v without its gaps' lexeme.
func pgGapless(v string) string { return "ts_delete(" + v + ", '" + pgGapLexeme + "')" }

// pgJoin is the expression concatenating the words of terms, each a
// member's or a run of members' (a column's, its gaps deleted), a gap
// between each two: what records_search_vector makes of their members,
// byte for byte. tsvector || is associative (a||b||c is what (a||b)||c
// and a||(b||c) are: it adds the right side's positions to the left
// side's greatest), and a gap's lexeme is deleted wherever it is, so the
// words are the same however the members are grouped.
func pgJoin(terms []string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	return pgGapless(strings.Join(terms, " || gap || "))
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

// pgSearchChanges are the statements that bring PostgreSQL's search
// columns to those events need, and their index builds. A column that
// is still generated with the expression wanted (the search as migrations
// up to 0024 made it) only drops its expression, keeping its values and
// its index: neither the table nor the index is written again.
func pgSearchChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, string, error) {
	// The search columns' comments, by "table.column", after "generated "
	// for a column still generated.
	have, err := namedTexts(ctx, db, `SELECT c.relname || '.' || a.attname,
  CASE WHEN a.attgenerated = 's' THEN 'generated ' ELSE '' END || coalesce(col_description(c.oid, a.attnum), '')
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
	upkeep, err := readUpkeep(ctx, db)
	if err != nil {
		return "", "", err
	}
	for _, e := range events {
		var changed, generated []pgColumn
		for _, c := range pgSearchColumns(e.search) {
			key := e.table.Name + "." + c.name
			comment, ok := have[key]
			delete(have, key)
			comment, gen := strings.CutPrefix(comment, "generated ")
			switch {
			case !ok || comment != signature(c.expr) || functions != "":
				c.there = ok
				changed = append(changed, c)
			case gen:
				generated = append(generated, c)
			}
		}
		if len(changed) > 0 {
			b.WriteString(functions) // before the first column that calls them
			functions = ""
		}
		pgSearchTable(&b, &builds, e.table.Name, changed, generated)
		upkeep.write(&b, e)
	}
	upkeep.drop(&b) // before the columns its triggers kept
	for _, key := range slices.Sorted(maps.Keys(have)) {
		table, col, _ := strings.Cut(key, ".")
		b.WriteString("-- " + table + " searches no member by " + col + " any more\n")
		b.WriteString(`ALTER TABLE ` + spec.Ident(table) + ` DROP COLUMN ` + spec.Ident(col) + ";\n")
	}
	return b.String(), builds.String(), nil
}

// pgColumn is a search column of a table, its members and its
// expression; there tells whether the table has it already (to be made
// again).
type pgColumn struct {
	name, members, expr string
	of                  []searchColumn
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
		out = append(out, pgColumn{name: spec.SearchClassColumn(c.class), members: describeSearch(c.members), expr: pgSearchExpr(c.members), of: c.members})
	}
	return append(out, pgColumn{name: spec.SearchColumn, members: describeSearch(cols), expr: pgSearchExpr(cols), of: cols})
}

// pgSearchTable writes the statements making the search columns changed
// of table (dropping those there are first), and their index builds, then
// those turning them and the columns generated into plain ones, which the
// table's trigger keeps (pgUpkeepBody). A column is made generated, with
// records_search_vector, and its expression dropped at once: the table's
// rewrite fills it, where an UPDATE would write every row again and its
// event. One ALTER TABLE adds them all: one rewrite, not one a column.
// Dropping an expression writes nothing.
func pgSearchTable(b, builds *strings.Builder, table string, changed, generated []pgColumn) {
	t := spec.Ident(table)
	var alter, plain []string
	for _, c := range changed {
		col := spec.Ident(c.name)
		b.WriteString("-- Search " + table + " by " + c.members + " in " + c.name + "\n")
		if c.there {
			alter = append(alter, "DROP COLUMN "+col)
		}
		alter = append(alter, "ADD COLUMN "+col+" tsvector GENERATED ALWAYS AS ("+c.expr+") STORED")
		plain = append(plain, "ALTER COLUMN "+col+" DROP EXPRESSION")
		index := spec.Ident(table + "_" + c.name)
		builds.WriteString("-- Index the search of " + table + " in " + c.name + "\n")
		builds.WriteString("DROP INDEX CONCURRENTLY IF EXISTS " + index + ";\n")
		builds.WriteString("CREATE INDEX CONCURRENTLY " + index + " ON " + t + " USING GIN (" + col + ");\n")
	}
	if len(alter) > 0 {
		b.WriteString("ALTER TABLE " + t + "\n  " + strings.Join(alter, ",\n  ") + ";\n")
	}
	for _, c := range generated {
		b.WriteString("-- Keep the search of " + table + " in " + c.name + " by a trigger, its words as they are\n")
		plain = append(plain, "ALTER COLUMN "+spec.Ident(c.name)+" DROP EXPRESSION")
	}
	if len(plain) > 0 {
		b.WriteString("ALTER TABLE " + t + "\n  " + strings.Join(plain, ",\n  ") + ";\n")
	}
	for _, c := range changed {
		b.WriteString(`COMMENT ON COLUMN ` + t + `.` + spec.Ident(c.name) + ` IS '` + signature(c.expr) + "';\n")
	}
}

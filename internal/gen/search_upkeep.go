package gen

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"strings"

	"records/internal/spec"
)

// PostgreSQL's search columns are plain tsvector columns that a trigger
// of their table keeps (issue 29, docs/performance.md): before a row is
// inserted, or updated in one of its searchable members, the table's own
// PL/pgSQL function folds and parses each member once and makes every
// search column of the members' words by concatenation, the words each
// column held as a stored generated column of records_search_vector, byte
// for byte. As generated columns, each calling records_search_vector,
// the class columns parsed their members again — a return's A members
// three times, its B member twice — and PostgreSQL rebuilt their three
// expressions for every statement writing the table; an UPDATE of no
// member computed them all again, where it now runs no trigger.

// pgUpkeepTrigger is the name of the trigger keeping a table's search
// columns.
const pgUpkeepTrigger = "records_search"

// pgUpkeepPrefix begins the name of a table's search trigger function:
// "records_search_of_" and the table's name, which no other function of
// the search (records_search_vector) begins with, whatever the table.
const pgUpkeepPrefix = "records_search_of_"

// pgUpkeepBody is the body of the trigger function keeping the search
// columns of a table searching cols. Each member's words are those
// records_search_vector makes of it alone; a column's are its members'
// concatenated in order, a gap between each two (pgJoin), reusing the
// column before when its members end this one's. It calls no function
// of the search path (ts_delete is pg_catalog's): a trigger may fire
// with another path than the service's, even an empty one.
func pgUpkeepBody(cols []searchColumn) string {
	index := map[string]int{}
	var b strings.Builder
	b.WriteString("\nDECLARE\n  t text;\n  " + pgGapDecl + "\n")
	for i, c := range cols {
		index[c.name] = i
		b.WriteString("  m" + strconv.Itoa(i) + " tsvector; -- " + c.name + "\n")
	}
	b.WriteString("BEGIN\n")
	for i, c := range cols {
		m := "m" + strconv.Itoa(i)
		b.WriteString("  t := coalesce(NEW." + spec.Ident(c.name) + "::text, '');\n")
		b.WriteString("  " + m + " := setweight(to_tsvector('english'::regconfig, " + pgFold("t") + "), '" + c.weight + "');\n")
	}
	var before []string // the column before, its members' variables
	prev := ""
	for _, col := range pgSearchColumns(cols) {
		terms := make([]string, len(col.of))
		for i, c := range col.of {
			terms[i] = "m" + strconv.Itoa(index[c.name])
		}
		vars := slices.Clone(terms)
		if n := len(terms) - len(before); len(before) > 0 && n >= 0 && slices.Equal(terms[n:], before) {
			terms = append(terms[:n], "NEW."+spec.Ident(prev))
		}
		b.WriteString("  NEW." + spec.Ident(col.name) + " := " + pgJoin(terms) + ";\n")
		before, prev = vars, col.name
	}
	b.WriteString("  RETURN NEW;\nEND\n")
	return b.String()
}

// pgUpkeep is what db has of the search triggers: each trigger function's
// language and body by name, and the definition of each table's trigger.
type pgUpkeep struct{ functions, triggers map[string]string }

func readUpkeep(ctx context.Context, db *sql.DB) (pgUpkeep, error) {
	functions, err := namedTexts(ctx, db, `SELECT p.proname, l.lanname || ' ' || p.prosrc FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
WHERE p.proname LIKE $1 AND n.nspname = current_schema()`, strings.ReplaceAll(pgUpkeepPrefix, "_", `\_`)+"%")
	if err != nil {
		return pgUpkeep{}, err
	}
	triggers, err := namedTexts(ctx, db, `SELECT c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE NOT t.tgisinternal AND t.tgname = $1 AND n.nspname = current_schema()`, pgUpkeepTrigger)
	return pgUpkeep{functions, triggers}, err
}

// write writes the statements making the trigger function and the
// trigger of e that db lacks or has otherwise; the trigger is made again
// only when its definition changed (the members it fires on).
func (u pgUpkeep) write(b *strings.Builder, e eventTable) {
	if len(e.search) == 0 {
		return
	}
	name, t := pgTableName(pgUpkeepPrefix, e.table.Name), spec.Ident(e.table.Name)
	body := pgUpkeepBody(e.search)
	if have, ok := u.functions[name]; !ok || have != "plpgsql "+body {
		b.WriteString("-- Keep the search columns of " + e.table.Name + ": each member parsed once a write\n")
		b.WriteString("CREATE OR REPLACE FUNCTION " + spec.Ident(name) + "() RETURNS trigger LANGUAGE plpgsql AS $records$" + body + "$records$;\n")
	}
	delete(u.functions, name)
	members := make([]string, len(e.search))
	for i, c := range e.search {
		members[i] = spec.Ident(c.name)
	}
	want := "CREATE TRIGGER " + pgUpkeepTrigger + " BEFORE INSERT OR UPDATE OF " + strings.Join(members, ", ") + " ON " + t +
		" FOR EACH ROW EXECUTE FUNCTION " + spec.Ident(name) + "()"
	if have, ok := u.triggers[e.table.Name]; !ok || !sameTrigger(have, want) {
		b.WriteString("DROP TRIGGER IF EXISTS " + pgUpkeepTrigger + " ON " + t + ";\n")
		b.WriteString(want + ";\n")
	}
	delete(u.triggers, e.table.Name)
}

// drop writes the statements dropping the triggers and functions that
// write did not make: those of tables that search nothing any more.
func (u pgUpkeep) drop(b *strings.Builder) {
	for _, table := range slices.Sorted(maps.Keys(u.triggers)) {
		b.WriteString("-- " + table + " searches nothing any more\n")
		b.WriteString("DROP TRIGGER " + pgUpkeepTrigger + " ON " + spec.Ident(table) + ";\n")
	}
	for _, name := range slices.Sorted(maps.Keys(u.functions)) {
		b.WriteString("DROP FUNCTION " + spec.Ident(name) + "();\n")
	}
}

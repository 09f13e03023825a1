package gen

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"records/internal/spec"
)

// pgEventFunction is the body of the PostgreSQL trigger function a record
// table's triggers run, once per statement: it writes the events of the
// rows the statement changed, read from the statement's transition table,
// in the change's transaction, with one INSERT … SELECT however many rows
// changed (a bulk create of 1,000 records writes its 1,000 events in one
// statement, where a trigger per row ran 1,000). The row is kept as
// row_to_json makes it, typed as its table is, and read back the same way.
// An update that moves a record to the trash (deleted_at set) is its
// deletion, one that takes it out its restoring, told apart by the rows
// before the change; a DELETE erases records for good: their purge
// (DESIGN §17). TG_ARGV[0] is the resource's plural. The transaction's id
// is read in the SELECT, so that a statement that changed no row (an
// UPDATE whose If-Match failed) does not take one. records.meta is the
// request's id and token, set by the statement that writes (see package
// engine).
//
// kept, when not nil, are the only columns the image keeps, in the table's
// order: it leaves out sensitive ones, and the search columns, whose words
// are the record's again. The image is then row_to_json of a row of those
// columns alone, which is the whole row's less theirs; the function is the
// table's own (pgEventFunctionName). Taking them out of the whole row's
// JSON instead (json_each, json_object_agg) turned each tsvector into text
// first, and cost an insert twice the event of a table without them.
func pgEventFunction(kept []string) string {
	image, from := "row_to_json(n)", ""
	if kept != nil {
		cols := make([]string, len(kept))
		for i, c := range kept {
			cols[i] = "n." + spec.Ident(c)
		}
		image, from = "row_to_json(i)", ", LATERAL (SELECT "+strings.Join(cols, ", ")+") i"
	}
	return `
DECLARE
  meta text := NULLIF(current_setting('records.meta', true), '');
  at bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "events" ("txid", "team_id", "type", "record_id", "meta", "occurred_at")
    SELECT pg_current_xact_id()::text::bigint, o."team_id", TG_ARGV[0] || '.purged', o."id", meta, at FROM "old_rows" o;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "events" ("txid", "team_id", "type", "record_id", "meta", "image", "occurred_at")
    SELECT pg_current_xact_id()::text::bigint, n."team_id", TG_ARGV[0] || '.created',
      n."id", meta, ` + image + `::text, at FROM "new_rows" n` + from + `;
  ELSE
    INSERT INTO "events" ("txid", "team_id", "type", "record_id", "meta", "image", "occurred_at")
    SELECT pg_current_xact_id()::text::bigint, n."team_id", TG_ARGV[0] || CASE
        WHEN o."deleted_at" IS NULL AND n."deleted_at" IS NOT NULL THEN '.deleted'
        WHEN o."deleted_at" IS NOT NULL AND n."deleted_at" IS NULL THEN '.restored'
        ELSE '.updated' END,
      n."id", meta, ` + image + `::text, at
    FROM "new_rows" n JOIN "old_rows" o ON o."id" = n."id"` + from + `;
  END IF;
  RETURN NULL;
END
`
}

// pgEventFunctionName is the trigger function of table: records_event,
// or the table's own when its image leaves columns out (kept not nil).
func pgEventFunctionName(table string, kept []string) string {
	if kept == nil {
		return "records_event"
	}
	return pgTableName("records_event_", table)
}

// pgKeptColumns are the columns of each table whose image leaves some
// out, in the table's order, by table: those of every table of events as
// db has them but the sensitive ones and the search columns.
func pgKeptColumns(ctx context.Context, db *sql.DB, events []eventTable) (map[string][]string, error) {
	have, err := namedTexts(ctx, db, `SELECT c.relname, string_agg(a.attname, ',' ORDER BY a.attnum) FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind = 'r' AND n.nspname = current_schema() GROUP BY c.relname`)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range events {
		if len(e.sensitive) == 0 && len(e.search) == 0 {
			continue
		}
		cols := strings.Split(have[e.table.Name], ",")
		out[e.table.Name] = slices.DeleteFunc(cols, func(c string) bool { return !e.kept(c) || isSearchColumn(c) })
	}
	return out, nil
}

// pgTrigger is one of a table's three event triggers on PostgreSQL: a
// trigger with a transition table fires on one kind of change only.
type pgTrigger struct{ name, event, rows string }

var pgTriggers = []pgTrigger{
	{"events_insert", "INSERT", `NEW TABLE AS "new_rows"`},
	{"events_update", "UPDATE", `OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"`},
	{"events_delete", "DELETE", `OLD TABLE AS "old_rows"`},
}

func pgTriggerChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, error) {
	var b strings.Builder
	fn, create, drop, err := pgEventFunctionChanges(ctx, db, events)
	if err != nil {
		return "", err
	}
	b.WriteString(create)
	// have maps table and trigger name to the trigger's definition.
	type named struct{ table, trigger string }
	have := map[named]string{}
	rows, err := db.QueryContext(ctx, `SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE NOT t.tgisinternal AND t.tgname LIKE 'events%' AND n.nspname = current_schema()`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var k named
		var def string
		if err := rows.Scan(&k.table, &k.trigger, &def); err != nil {
			return "", err
		}
		have[k] = def
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	for _, e := range events {
		t := spec.Ident(e.table.Name)
		comment := false
		for _, tr := range pgTriggers {
			k := named{e.table.Name, tr.name}
			def, ok := have[k]
			delete(have, k)
			want := `CREATE TRIGGER ` + tr.name + ` AFTER ` + tr.event + ` ON ` + t + ` REFERENCING ` + tr.rows +
				` FOR EACH STATEMENT EXECUTE FUNCTION ` + spec.Ident(fn[e.table.Name]) + `('` + e.plural + `')`
			if ok && sameTrigger(def, want) {
				continue
			}
			if !comment {
				b.WriteString(fmt.Sprintf("-- Record the changes of %s as events\n", e.table.Name))
				comment = true
			}
			if ok {
				b.WriteString(`DROP TRIGGER ` + tr.name + ` ON ` + t + ";\n")
			}
			b.WriteString(want + ";\n")
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(have), func(a, b named) int {
		return cmp.Or(strings.Compare(a.table, b.table), strings.Compare(a.trigger, b.trigger))
	}) {
		b.WriteString(`DROP TRIGGER ` + spec.Ident(k.trigger) + ` ON ` + spec.Ident(k.table) + ";\n")
	}
	b.WriteString(drop) // once no trigger runs them
	return b.String(), nil
}

// pgEventFunctionChanges are the statements that make the event trigger
// functions events need and db lacks or has otherwise (create), and those
// that drop the tables' own functions no longer needed (drop); fn is the
// function of each table of events.
func pgEventFunctionChanges(ctx context.Context, db *sql.DB, events []eventTable) (fn map[string]string, create, drop string, err error) {
	have, err := namedTexts(ctx, db, `SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE (p.proname = 'records_event' OR p.proname LIKE 'records\_event\_%') AND n.nspname = current_schema()`)
	if err != nil {
		return nil, "", "", err
	}
	kept, err := pgKeptColumns(ctx, db, events)
	if err != nil {
		return nil, "", "", err
	}
	var b strings.Builder
	write := func(name, what string, kept []string) {
		src, ok := have[name]
		delete(have, name)
		if body := pgEventFunction(kept); !ok || src != body {
			b.WriteString("-- Write the events of each statement's changes of " + what + "\n")
			b.WriteString(`CREATE OR REPLACE FUNCTION ` + spec.Ident(name) + `() RETURNS trigger LANGUAGE plpgsql AS $records$` + body + "$records$;\n")
		}
	}
	write("records_event", "records", nil)
	fn = map[string]string{}
	for _, e := range events {
		cols, own := kept[e.table.Name]
		fn[e.table.Name] = pgEventFunctionName(e.table.Name, cols)
		if own {
			write(fn[e.table.Name], e.table.Name+", whose images leave out "+strings.Join(leftOut(e), ", "), cols)
		}
	}
	var d strings.Builder
	for _, name := range slices.Sorted(maps.Keys(have)) {
		d.WriteString(`DROP FUNCTION ` + spec.Ident(name) + "();\n")
	}
	return fn, b.String(), d.String(), nil
}

// leftOut are the columns e's images leave out.
func leftOut(e eventTable) []string {
	out := slices.Clone(e.sensitive)
	if len(e.search) > 0 {
		out = append(out, spec.SearchColumn)
		for _, c := range searchClasses(e.search) {
			out = append(out, spec.SearchClassColumn(c.class))
		}
	}
	return out
}

// sameTrigger tells whether PostgreSQL's definition of a trigger
// (pg_get_triggerdef: the table schema-qualified, identifiers quoted only
// where needed) is the statement want creates.
func sameTrigger(def, want string) bool {
	norm := func(s string) string {
		return qualified.ReplaceAllString(strings.ReplaceAll(s, `"`, ""), " ON ")
	}
	return norm(def) == norm(want)
}

var qualified = regexp.MustCompile(` ON [^ .]+\.`)

// pgMaxName is the longest name PostgreSQL keeps, in bytes: it cuts a
// longer one short, and the name read back would differ from the one made
// at every run of the generator.
const pgMaxName = 63

// pgTableName is prefix and table as the name of a table's own function:
// when that is too long for PostgreSQL, the table's name is cut and eight
// hex digits of its digest end it, so that two long names stay apart.
func pgTableName(prefix, table string) string {
	name := prefix + table
	if len(name) <= pgMaxName {
		return name
	}
	sum := sha256.Sum256([]byte(table))
	tail := "_" + hex.EncodeToString(sum[:4])
	cut := pgMaxName - len(prefix) - len(tail)
	for cut > 0 && !utf8.RuneStart(table[cut]) {
		cut--
	}
	return prefix + table[:cut] + tail
}

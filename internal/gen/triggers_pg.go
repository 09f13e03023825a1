package gen

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"records/internal/spec"
)

// pgEventFunction is the PostgreSQL trigger function every record table's
// triggers run, once per statement: it writes the events of the rows the
// statement changed, read from the statement's transition table, in the
// change's transaction, with one INSERT … SELECT however many rows
// changed (a bulk create of 1,000 records writes its 1,000 events in one
// statement, where a trigger per row ran 1,000). The row is kept as
// row_to_json makes it, typed as its table is, and read back the same way.
// An update that moves a record to the trash (deleted_at set) is its
// deletion, one that takes it out its restoring, told apart by the rows
// before the change; a DELETE erases records for good: their purge
// (DESIGN §17). TG_ARGV[0] is the resource's plural; the arguments after it name the
// columns the image leaves out — sensitive ones, and the search columns,
// whose words are the record's again (as json_each gives the other values,
// unchanged). The transaction's id is read in
// the SELECT, so that a statement that changed no row (an UPDATE whose
// If-Match failed) does not take one. records.meta is the request's id and
// token, set by the statement that writes (see package engine).
const pgEventFunction = `
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
      n."id", meta, CASE WHEN TG_NARGS = 1 THEN row_to_json(n)::text ELSE (SELECT json_object_agg(c.key, c.value)
        FROM json_each(row_to_json(n)) c WHERE c.key <> ALL (TG_ARGV[1:TG_NARGS - 1]))::text END, at FROM "new_rows" n;
  ELSE
    INSERT INTO "events" ("txid", "team_id", "type", "record_id", "meta", "image", "occurred_at")
    SELECT pg_current_xact_id()::text::bigint, n."team_id", TG_ARGV[0] || CASE
        WHEN o."deleted_at" IS NULL AND n."deleted_at" IS NOT NULL THEN '.deleted'
        WHEN o."deleted_at" IS NOT NULL AND n."deleted_at" IS NULL THEN '.restored'
        ELSE '.updated' END,
      n."id", meta, CASE WHEN TG_NARGS = 1 THEN row_to_json(n)::text ELSE (SELECT json_object_agg(c.key, c.value)
        FROM json_each(row_to_json(n)) c WHERE c.key <> ALL (TG_ARGV[1:TG_NARGS - 1]))::text END, at
    FROM "new_rows" n JOIN "old_rows" o ON o."id" = n."id";
  END IF;
  RETURN NULL;
END
`

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
	var src sql.NullString
	err := db.QueryRowContext(ctx, `SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname = 'records_event' AND n.nspname = current_schema()`).Scan(&src)
	if err != nil && err != sql.ErrNoRows {
		return "", err
	}
	if !src.Valid || src.String != pgEventFunction {
		b.WriteString("-- Write the events of each statement's changes of records\n")
		b.WriteString(`CREATE OR REPLACE FUNCTION "records_event"() RETURNS trigger LANGUAGE plpgsql AS $records$` + pgEventFunction + "$records$;\n")
	}
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
			args := "'" + e.plural + "'"
			for _, c := range e.sensitive {
				args += ", '" + c + "'"
			}
			if len(e.search) > 0 {
				// Their words are the record's again; no image keeps them.
				args += ", '" + spec.SearchColumn + "'"
				for _, c := range searchClasses(e.search) {
					args += ", '" + spec.SearchClassColumn(c.class) + "'"
				}
			}
			want := `CREATE TRIGGER ` + tr.name + ` AFTER ` + tr.event + ` ON ` + t + ` REFERENCING ` + tr.rows +
				` FOR EACH STATEMENT EXECUTE FUNCTION "records_event"(` + args + `)`
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
	return b.String(), nil
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

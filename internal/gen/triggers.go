package gen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
	"records/internal/migrate"
	"records/internal/spec"
)

// eventTable is a record table whose changes the database records as
// events (schema/event.go): every resource's.
type eventTable struct {
	table  *schema.Table
	plural string
	// sensitive are the columns of sensitive fields (ent's Sensitive):
	// written, never answered, so never kept in an event's image either.
	sensitive []string
	// search are the searchable members' columns, in the schema's order.
	search []searchColumn
}

// kept tells whether an event's image keeps the column.
func (e eventTable) kept(column string) bool { return !slices.Contains(e.sensitive, column) }

// eventTables are the tables of the graph's resources.
func eventTables(graph *gen.Graph, tables []*schema.Table) ([]eventTable, error) {
	var out []eventTable
	for _, n := range graph.Nodes {
		ra, ok, err := annotation.Decode[annotation.Resource](n.Annotations, annotation.ResourceName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		if !ok {
			continue
		}
		i := slices.IndexFunc(tables, func(t *schema.Table) bool { return t.Name == n.Table() })
		if i < 0 {
			return nil, fmt.Errorf("%s: no table %s", n.Name, n.Table())
		}
		e := eventTable{table: tables[i], plural: ra.Plural}
		for _, f := range n.Fields {
			if f.Sensitive() {
				e.sensitive = append(e.sensitive, f.StorageKey())
			}
			fa, _, err := annotation.Decode[annotation.Field](f.Annotations, annotation.FieldName)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", n.Name, f.Name, err)
			}
			if fa.Search != "" {
				e.search = append(e.search, searchColumn{f.StorageKey(), fa.Search})
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b eventTable) int { return strings.Compare(a.table.Name, b.table.Name) })
	return out, nil
}

// triggerChanges are the statements that bring the event triggers of db
// (with the committed migrations applied) to those events needs: created
// where missing, replaced where they differ, dropped where a table is no
// longer a resource's. "" when nothing changes.
func triggerChanges(ctx context.Context, dialect string, db *sql.DB, events []eventTable) (string, error) {
	if dialect == migrate.Postgres {
		return pgTriggerChanges(ctx, db, events)
	}
	return sqliteTriggerChanges(ctx, db, events)
}

func sqliteTriggerChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, error) {
	have, err := namedTexts(ctx, db, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'events\_%' ESCAPE '\'`)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range events {
		for _, tr := range sqliteTriggers(e) {
			text, ok := have[tr.name]
			delete(have, tr.name)
			if ok && text == tr.sql {
				continue
			}
			if ok {
				b.WriteString(`DROP TRIGGER ` + spec.Ident(tr.name) + ";\n")
			}
			b.WriteString(fmt.Sprintf("-- Record the %s of %s as events\n", tr.what, e.table.Name))
			b.WriteString(tr.sql + ";\n")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		b.WriteString(`DROP TRIGGER IF EXISTS ` + spec.Ident(name) + ";\n")
	}
	return b.String(), nil
}

type sqliteTrigger struct{ name, what, sql string }

// sqliteTriggers are the three triggers of a table on SQLite. SQLite has no
// generic row-to-JSON, so each lists the table's columns; a column added or
// removed replaces them. current_setting is the service's own function
// (package db), answering what the writing statement set. A create sent
// with an Idempotency-Key also sets records.key and
// records.key_fingerprint: the creation's trigger keeps them on the event
// it writes, so that the create and its key are one statement and one row
// (package engine, keyed.go); otherwise they are null.
func sqliteTriggers(e eventTable) []sqliteTrigger {
	t := spec.Ident(e.table.Name)
	image := func(row string) string {
		var b strings.Builder
		b.WriteString("json_object(")
		first := true
		for _, c := range e.table.Columns {
			if !e.kept(c.Name) {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			v := row + "." + spec.Ident(c.Name)
			if c.Type == field.TypeJSON {
				v = "json(" + v + ")"
			}
			b.WriteString("'" + c.Name + "', " + v)
		}
		b.WriteString(")")
		return b.String()
	}
	const into = `INSERT INTO "events" ("txid", "team_id", "type", "record_id", "meta", "image", "occurred_at"`
	const cols = into + `) VALUES (0, `
	const keyedCols = into + `, "idempotency_key", "idempotency_fingerprint") VALUES (0, `
	const rest = `current_setting('records.meta', 1), `
	const at = `records_now()` // microseconds, on the records' clock (db/settings.go)
	const key = `current_setting('records.key', 1), current_setting('records.key_fingerprint', 1)`
	name := "events_" + e.table.Name
	return []sqliteTrigger{
		{name + "_insert", "creations", `CREATE TRIGGER ` + spec.Ident(name+"_insert") + ` AFTER INSERT ON ` + t + " BEGIN " +
			keyedCols + `NEW."team_id", '` + e.plural + `.created', NEW."id", ` + rest + image("NEW") + ", " + at + ", " + key + "); END"},
		{name + "_update", "changes", `CREATE TRIGGER ` + spec.Ident(name+"_update") + ` AFTER UPDATE ON ` + t + " BEGIN " +
			cols + `NEW."team_id", '` + e.plural + `.' || CASE WHEN OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL THEN 'deleted' ` +
			`WHEN OLD."deleted_at" IS NOT NULL AND NEW."deleted_at" IS NULL THEN 'restored' ELSE 'updated' END, NEW."id", ` +
			rest + image("NEW") + ", " + at + "); END"},
		{name + "_delete", "purges", `CREATE TRIGGER ` + spec.Ident(name+"_delete") + ` AFTER DELETE ON ` + t + " BEGIN " +
			cols + `OLD."team_id", '` + e.plural + `.purged', OLD."id", ` + rest + "NULL, " + at + "); END"},
	}
}

// addKeyIndex gives SQLite's events the index of the idempotency keys the
// creation triggers keep on them (sqliteTriggers): partial, so that only
// the event of a create sent with a key has an entry. PostgreSQL keeps its
// keys in idempotency_keys, and its events need no such index.
func addKeyIndex(tables []*schema.Table) error {
	i := slices.IndexFunc(tables, func(t *schema.Table) bool { return t.Name == "events" })
	if i < 0 {
		return nil // no events, no triggers
	}
	t := tables[i]
	if _, ok := t.Column("idempotency_key"); !ok {
		return errors.New(`events: the creation triggers keep keys in "idempotency_key", a column it lacks`)
	}
	t.AddIndex("event_idempotency_key", false, []string{"idempotency_key"})
	t.Indexes[len(t.Indexes)-1].Annotation = entsql.IndexWhere("idempotency_key IS NOT NULL")
	return nil
}

// namedTexts runs a query of two text columns, a name and a text, and
// answers the texts by name.
func namedTexts(ctx context.Context, db *sql.DB, query string, args ...any) (map[string]string, error) {
	have := map[string]string{}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return nil, err
		}
		have[name] = text
	}
	return have, rows.Err()
}

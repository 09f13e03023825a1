package gen

import (
	"context"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"records/internal/dbtest"
	"records/internal/migrate"
)

// removeMember removes column from table in tables and from its event
// table's searchable members, as deleting the field from the schema does.
func removeMember(tables []*schema.Table, events []eventTable, table, column string) {
	for _, t := range tables {
		if t.Name == table {
			t.Columns = slices.DeleteFunc(t.Columns, func(c *schema.Column) bool { return c.Name == column })
		}
	}
	for i := range events {
		if events[i].table.Name == table {
			events[i].search = slices.DeleteFunc(events[i].search, func(c searchColumn) bool { return c.name == column })
		}
	}
}

func TestDroppingAMemberDropsItsColumn(t *testing.T) {
	for _, d := range dbtest.Dialects {
		for _, column := range []string{"serial_number", "tracking_number"} {
			t.Run(dbtest.Name(d)+"/"+column, func(t *testing.T) {
				tables, events := schemaEvents(t, d)
				removeMember(tables, events, "returns", column)
				set, _ := readMigrations(repoConfig(), d)
				p := diffEvents(t, d, set, tables, events)
				database := migratedBy(t, d, set, p)
				ctx := context.Background()
				if d == migrate.Postgres && column == "serial_number" {
					first := strings.Index(p.sql, `DROP TRIGGER records_search ON "returns";`)
					if drop := strings.Index(p.sql, `DROP COLUMN "serial_number"`); first < 0 || first > drop {
						t.Errorf("want the search trigger dropped before the column:\n%s", p.sql)
					}
				}
				// The search index still follows the members that remain.
				if _, err := database.SQL.ExecContext(ctx, `INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP);
INSERT INTO returns (id, team_id, description, rma) VALUES ('r', 1, 'cracked housing', 'RMA-1')`); err != nil {
					t.Fatal(err)
				}
				var n int
				q := `SELECT count(*) FROM returns WHERE records_search @@ to_tsquery('english', 'housing')`
				if d == migrate.SQLite {
					if err := database.SearchReady(ctx, nil, "returns"); err != nil {
						t.Fatalf("indexing the queue of returns: %v", err)
					}
					q = `SELECT count(*) FROM returns_search WHERE returns_search MATCH 'housing'`
				}
				if err := database.SQL.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 1 {
					t.Errorf("a return written after the migration: %d found by its description (%v)", n, err)
				}
			})
		}
	}
}

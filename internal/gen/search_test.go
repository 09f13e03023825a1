package gen

import (
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
)

// Reweighting a searchable member remakes the search indexes of its
// table that it changes, and no other table's: returns' issue moved from
// B to A makes a new class A index (on SQLite, the FTS5 table filled
// again, class A's documents with the issue), class B (now A's members
// again) goes, and on PostgreSQL the column of every member, whose words carry
// their weight, is made again.
func TestReweightingRemakesTheClassIndexes(t *testing.T) {
	want := map[string][]string{
		migrate.Postgres: {
			// One statement remakes the table's columns: one rewrite.
			"ALTER TABLE \"returns\"\n  DROP COLUMN \"records_search_a\",\n" +
				`  ADD COLUMN "records_search_a" tsvector GENERATED ALWAYS AS (records_search_vector('AAAA', "issue", "customer_email", "rma", "serial_number")) STORED,` + "\n" +
				`  DROP COLUMN "records_search",` + "\n" +
				`  ADD COLUMN "records_search" tsvector`,
			`ALTER TABLE "returns" DROP COLUMN "records_search_b";`,
			`CREATE INDEX CONCURRENTLY "returns_records_search_a" ON "returns" USING GIN ("records_search_a");`,
		},
		migrate.SQLite: {
			`CREATE VIRTUAL TABLE "returns_search" USING fts5("description", "issue", "customer_email", "rma", "serial_number", content=''`,
			`INSERT INTO "returns_search"("rowid", "description", "issue", "customer_email", "rma", "serial_number") SELECT "rowid", "description", "issue", "customer_email", "rma", "serial_number" FROM "returns";`,
			`INSERT INTO "returns_search"("rowid", "description", "issue", "customer_email", "rma", "serial_number") SELECT "rowid" + 1099511627776, NULL, "issue", "customer_email", "rma", "serial_number" FROM "returns";`,
		},
	}
	gone := map[string]string{
		migrate.Postgres: `"records_search_b" tsvector`,
		migrate.SQLite:   `+ 2199023255552`, // class B's documents
	}
	unchanged := map[string]string{
		migrate.Postgres: `"cases"`,
		migrate.SQLite:   `"cases_search"`,
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			tables, err := schemaTables(repoGraph(t), d)
			if err != nil {
				t.Fatal(err)
			}
			events, err := eventTables(repoGraph(t), tables)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events {
				for i, c := range e.search {
					if e.table.Name == "returns" && c.name == "issue" {
						e.search[i].weight = "A"
					}
				}
			}
			set, _ := readMigrations(repoConfig(), d)
			p := diffEvents(t, d, set, tables, events)
			got := p.sql + p.builds
			for _, w := range want[d] {
				if !strings.Contains(got, w) {
					t.Errorf("want the migration to contain\n%s\ngot\n%s", w, got)
				}
			}
			if strings.Contains(got, gone[d]) {
				t.Errorf("the migration makes %s, which is gone:\n%s", gone[d], got)
			}
			if strings.Contains(got, unchanged[d]) {
				t.Errorf("the migration remakes %s, which did not change:\n%s", unchanged[d], got)
			}
		})
	}
}

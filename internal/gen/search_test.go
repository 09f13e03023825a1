package gen

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"entgo.io/ent/dialect/sql/schema"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/query"
	"records/internal/spec"
)

// Reweighting a searchable member remakes the search indexes of its
// table that it changes, and no other table's: returns' issue moved from
// B to A makes a new class A index (on SQLite, the FTS5 table filled
// again, class A's documents with the issue), class B (now A's members
// again) goes, and on PostgreSQL the column of every member, whose words carry
// their weight, is made again — filled as a generated column whose
// expression is dropped — and the trigger function keeping them replaced,
// the trigger itself kept (it fires on the same members).
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
			"ALTER TABLE \"returns\"\n  ALTER COLUMN \"records_search_a\" DROP EXPRESSION,\n  ALTER COLUMN \"records_search\" DROP EXPRESSION;",
			`CREATE OR REPLACE FUNCTION "records_search_of_returns"()`,
			"  NEW.\"records_search_a\" := ts_delete(m1 || gap || m2 || gap || m3 || gap || m4, ' ');\n" +
				"  NEW.\"records_search\" := ts_delete(m0 || gap || NEW.\"records_search_a\", ' ');\n",
		},
		migrate.SQLite: {
			`CREATE VIRTUAL TABLE "returns_search" USING fts5("description", "issue", "customer_email", "rma", "serial_number", content=''`,
			`INSERT INTO "returns_search"("rowid", "description", "issue", "customer_email", "rma", "serial_number") SELECT "rowid", "description", "issue", "customer_email", "rma", "serial_number" FROM "returns";`,
			`INSERT INTO "returns_search"("rowid", "description", "issue", "customer_email", "rma", "serial_number") SELECT "rowid" + 1099511627776, NULL, "issue", "customer_email", "rma", "serial_number" FROM "returns";`,
		},
	}
	gone := map[string][]string{
		migrate.Postgres: {`"records_search_b" tsvector`, `records_search_b" :=`, `CREATE TRIGGER records_search`},
		migrate.SQLite:   {`+ 2199023255552`}, // class B's documents
	}
	unchanged := map[string]string{
		migrate.Postgres: `"cases"`,
		migrate.SQLite:   `"cases_search"`,
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			tables, events := schemaEvents(t, d)
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
			for _, g := range gone[d] {
				if strings.Contains(got, g) {
					t.Errorf("the migration makes %s, which is gone:\n%s", g, got)
				}
			}
			if strings.Contains(got, unchanged[d]) {
				t.Errorf("the migration remakes %s, which did not change:\n%s", unchanged[d], got)
			}
		})
	}
}

// A change to the queue's view alone (as migration 0027 made, the queue
// entry's rowid added as its last column) remakes the view and nothing
// else: the index, its queue and its triggers stay, and no record is read
// into the index again.
func TestAViewAloneIsMadeAgainAlone(t *testing.T) {
	tables, events := schemaEvents(t, migrate.SQLite)
	set, _ := readMigrations(repoConfig(), migrate.SQLite)
	i := slices.IndexFunc(set, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_search_batches_bounded.sql") })
	if i < 0 {
		t.Fatal("no migration search_batches_bounded")
	}
	got := diffEvents(t, migrate.SQLite, set[:i], tables, events).sql
	var made []string
	for _, line := range strings.Split(got, "\n") {
		if line != "" && !strings.HasPrefix(line, "--") {
			made = append(made, strings.Join(strings.Fields(line)[:3], " "))
		}
	}
	if !slices.Contains(made, `CREATE VIEW "returns_search_pending"("rowid",`) || slices.ContainsFunc(made, func(s string) bool {
		return !strings.HasPrefix(s, "DROP VIEW IF") && !strings.HasPrefix(s, "CREATE VIEW")
	}) {
		t.Fatalf("want views dropped and made again, nothing else; got\n%s", got)
	}
}

// Marking and unmarking members on PostgreSQL: the trigger of a table
// whose members changed is made again, firing on its new members, and
// that of a table searching nothing any more is dropped with its function
// and columns; the migration applies, and the columns of a record written
// after it hold the words records_search_vector makes of its members.
func TestMarkingAndUnmarkingRemakesTheSearchTrigger(t *testing.T) {
	d := migrate.Postgres
	dbtest.RequirePostgres(t)
	tables, events := schemaEvents(t, d)
	for i, e := range events {
		switch e.table.Name {
		case "returns": // description unmarked, status marked
			events[i].search = append([]searchColumn{{"status", "B"}}, e.search[1:]...)
		case "cases":
			events[i].search = nil
		}
	}
	set, _ := readMigrations(repoConfig(), d)
	p := diffEvents(t, d, set, tables, events)
	for _, w := range []string{
		"DROP TRIGGER IF EXISTS records_search ON \"returns\";\nCREATE TRIGGER records_search BEFORE INSERT OR UPDATE OF " +
			`"status", "issue", "customer_email", "rma", "serial_number" ON "returns" FOR EACH ROW EXECUTE FUNCTION "records_search_of_returns"();`,
		"DROP TRIGGER records_search ON \"cases\";\nDROP FUNCTION \"records_search_of_cases\"();\n",
		`ALTER TABLE "cases" DROP COLUMN "records_search";`,
	} {
		if !strings.Contains(p.sql, w) {
			t.Errorf("want the migration to contain\n%s\ngot\n%s", w, p.sql)
		}
	}
	if strings.Contains(p.sql, `ON "customers"`) {
		t.Errorf("the migration remakes the trigger of customers, which did not change:\n%s", p.sql)
	}
	database := migratedBy(t, d, set, p)
	ctx := context.Background()
	if _, err := database.SQL.ExecContext(ctx, `INSERT INTO teams (id, name, created_at) VALUES (1, 'one', now());
INSERT INTO returns (id, team_id, description, status, issue, rma) VALUES ('r', 1, 'cracked housing', 'Ré-opened', 'loose hinge', 'RMA-1');
INSERT INTO cases (id, team_id, case_name) VALUES ('c', 1, 'cracked')`); err != nil {
		t.Fatal(err)
	}
	for _, c := range pgSearchColumns(events[slices.IndexFunc(events, func(e eventTable) bool { return e.table.Name == "returns" })].search) {
		var same bool
		q := `SELECT tsvectorsend(` + spec.Ident(c.name) + `) = tsvectorsend(` + c.expr + `) FROM returns`
		if err := database.SQL.QueryRowContext(ctx, q).Scan(&same); err != nil || !same {
			t.Errorf("%s: the words of a return written after the migration are not %s's (%v)", c.name, c.expr, err)
		}
	}
}

// No phrase q can hold spans two members of a PostgreSQL search column:
// the last word of one and the first of the next, as many stop words
// between them as q has room for (websearch's <N>), are found as words
// but not as a phrase, in the columns records_search_vector makes and in
// those a table's trigger keeps; within one member the same phrase is
// found. The gap's lexeme is not among the words.
func TestSearchPhrasesStayWithinAMember(t *testing.T) {
	d := migrate.Postgres
	dbtest.RequirePostgres(t)
	tables, events := schemaEvents(t, d)
	set, _ := readMigrations(repoConfig(), d)
	database := migratedBy(t, d, set, diffEvents(t, d, set, tables, events))
	ctx := context.Background()
	if _, err := database.SQL.ExecContext(ctx, `INSERT INTO teams (id, name, created_at) VALUES (1, 'one', now())`); err != nil {
		t.Fatal(err)
	}
	found := func(q, vector string, args ...any) bool {
		t.Helper()
		m, err := query.ParseQ(q)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		err = database.SQL.QueryRowContext(ctx, `SELECT `+vector+` @@ websearch_to_tsquery('english'::regconfig, $1)`, append([]any{m.Web}, args...)...).Scan(&ok)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return ok
	}
	apart := `records_search_vector('AB', $2, $3)`
	kept := `(SELECT records_search FROM cases WHERE id = $2)`
	for stops := ""; len(stops)+len(`"zanzibar widget"`) <= query.MaxQ; stops += "a " {
		phrase := `"zanzibar ` + stops + `widget"`
		if !found(phrase, `records_search_vector('AB', $2, '')`, "zanzibar "+stops+"widget") {
			t.Fatalf("%s: not found within one member", phrase)
		}
		if found(phrase, apart, "broken zanzibar", stops+"widget arrived") {
			t.Fatalf("%s: found across two members", phrase)
		}
		id := strconv.Itoa(len(stops))
		if _, err := database.SQL.ExecContext(ctx, `INSERT INTO cases (id, team_id, case_name, description) VALUES ($1, 1, 'broken zanzibar', $2)`, id, stops+"widget arrived"); err != nil {
			t.Fatal(err)
		}
		if found(phrase, kept, id) {
			t.Fatalf("%s: found across two members of a row the trigger keeps", phrase)
		}
		if !found("zanzibar widget", kept, id) || !found(`"broken zanzibar"`, kept, id) {
			t.Fatalf("%s: the words or a phrase within one member are not found", stops)
		}
	}
	var gap bool
	if err := database.SQL.QueryRowContext(ctx, `SELECT bool_or(l = $1) FROM (SELECT unnest(tsvector_to_array(records_search)) FROM cases) w(l)`, pgGapLexeme).Scan(&gap); err != nil || gap {
		t.Errorf("a gap's lexeme is among the words (%v)", err)
	}
}

// migratedBy is a new database of dialect with the migrations of set
// applied, then plan p.
func migratedBy(t *testing.T, dialect string, set []migrate.Migration, p plan) *db.DB {
	t.Helper()
	database := dbtest.OpenEmpty(t, dialect)
	ctx := context.Background()
	if _, err := migrate.Apply(ctx, database.SQL, dialect, set); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append([]string{p.sql}, migrate.Statements(p.builds)...) {
		if _, err := database.SQL.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%v applying\n%s", err, stmt)
		}
	}
	return database
}

// schemaEvents are the repository schema's tables for dialect and their
// event tables, with their searchable members.
func schemaEvents(t *testing.T, dialect string) ([]*schema.Table, []eventTable) {
	t.Helper()
	tables, err := schemaTables(repoGraph(t), dialect)
	if err != nil {
		t.Fatal(err)
	}
	events, err := eventTables(repoGraph(t), tables)
	if err != nil {
		t.Fatal(err)
	}
	return tables, events
}

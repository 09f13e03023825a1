package gen

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/scratch"
)

// repoConfig is the repository's own layout, seen from this package's folder.
func repoConfig() Config {
	cfg := DefaultConfig()
	cfg.Root = filepath.Join("..", "..")
	return cfg
}

var (
	graphOnce sync.Once
	graph     *gen.Graph
	graphErr  error
)

// repoGraph loads the repository's schema once for the package: loading
// compiles it, and ent's loader works in a fixed folder of the working
// directory, so loads must not overlap.
func repoGraph(t *testing.T) *gen.Graph {
	t.Helper()
	graphOnce.Do(func() { graph, graphErr = loadGraph(repoConfig()) })
	if graphErr != nil {
		t.Fatal(graphErr)
	}
	return graph
}

// diffOn diffs set against tables on a scratch database of the dialect.
func diffOn(t *testing.T, dialect string, set []migrate.Migration, tables []*schema.Table) plan {
	t.Helper()
	events, err := eventTables(repoGraph(t), tables)
	if err != nil {
		t.Fatal(err)
	}
	return diffEvents(t, dialect, set, tables, events)
}

// diffEvents is diffOn with the event tables (and their searchable
// members) given.
func diffEvents(t *testing.T, dialect string, set []migrate.Migration, tables []*schema.Table, events []eventTable) plan {
	t.Helper()
	var p plan
	var err error
	if dialect == migrate.SQLite {
		p, err = diffSQLite(context.Background(), set, tables, events)
	} else {
		dbtest.RequirePostgres(t)
		p, err = diffPostgres(context.Background(), dbtest.PostgresURL(), set, tables, events)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommittedMigrationsMatchTheSchema(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			tables, err := schemaTables(repoGraph(t), d)
			if err != nil {
				t.Fatal(err)
			}
			set, err := readMigrations(repoConfig(), d)
			if err != nil || len(set) == 0 {
				t.Fatalf("reading the %s migrations: %d files, %v", d, len(set), err)
			}
			if p := diffOn(t, d, set, tables); !p.empty() {
				t.Fatalf("the schema changed without a migration; run `make generate`. Missing:\n%s%s", p.sql, p.builds)
			}
		})
	}
}

func TestASchemaChangeMakesAMigration(t *testing.T) {
	want := map[string]string{
		// SQLite's triggers list the columns: they are replaced.
		migrate.SQLite: "ALTER TABLE `customers` ADD COLUMN `notes` text NULL;\n" +
			`DROP TRIGGER "events_customers_insert";`,
		migrate.Postgres: `ALTER TABLE "customers" ADD COLUMN "notes" character varying NULL;`,
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			tables, err := schemaTables(repoGraph(t), d)
			if err != nil {
				t.Fatal(err)
			}
			// The schema as if a member "notes" were added to Customer.
			for _, tb := range tables {
				if tb.Name == "customers" {
					tb.AddColumn(&schema.Column{Name: "notes", Type: field.TypeString, Nullable: true})
				}
			}
			set, _ := readMigrations(repoConfig(), d)
			if sql := diffOn(t, d, set, tables).sql; !strings.Contains(sql, want[d]) {
				t.Fatalf("want the migration to contain\n%s\ngot\n%s", want[d], sql)
			}
		})
	}
}

// indexedMembersDiff is the migration of dialect for the schema as if
// Customer had gained a sortable member, notes, and a unique one, badge.
func indexedMembersDiff(t *testing.T, dialect string) plan {
	tables, err := schemaTables(repoGraph(t), dialect)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == "customers" {
			tb.AddColumn(&schema.Column{Name: "notes", Type: field.TypeString, Nullable: true})
			tb.AddIndex("customer_team_id_notes_id", false, []string{"team_id", "notes", "id"})
			tb.AddColumn(&schema.Column{Name: "badge", Type: field.TypeString, Nullable: true, Unique: true})
		}
	}
	set, _ := readMigrations(repoConfig(), dialect)
	return diffOn(t, dialect, set, tables)
}

// A member added with an index (sortable, or unique) is added in place on
// SQLite, its table not copied.
func TestAnIndexedMemberIsAddedInPlace(t *testing.T) {
	sql := indexedMembersDiff(t, migrate.SQLite).sql
	for _, want := range []string{
		"ALTER TABLE `customers` ADD COLUMN `notes` text NULL;",
		"CREATE INDEX `customer_team_id_notes_id` ON `customers` (`team_id`, `notes`, `id`);",
		"ALTER TABLE `customers` ADD COLUMN `badge` text NULL;",
		"CREATE UNIQUE INDEX `customers_badge_key` ON `customers` (`badge`);",
	} {
		if !strings.Contains(sql, want) {
			t.Fatalf("want the migration to contain\n%s\ngot\n%s", want, sql)
		}
	}
	if strings.Contains(sql, "new_customers") {
		t.Fatalf("the migration copies the table:\n%s", sql)
	}
}

// On PostgreSQL an index added to a table that exists — a sortable member,
// a unique one — is built with CREATE INDEX CONCURRENTLY, which lets writes
// go on, in statements of their own outside the migration's transaction,
// each after a DROP of what a build cut short would have left.
func TestAnIndexOnATableThatExistsIsBuiltConcurrently(t *testing.T) {
	p := indexedMembersDiff(t, migrate.Postgres)
	if !strings.Contains(p.sql, `ALTER TABLE "customers" ADD COLUMN "notes" character varying NULL`) || strings.Contains(p.sql, "INDEX") {
		t.Fatalf("want the columns added in the transaction, and no index built there; got\n%s", p.sql)
	}
	want := `DROP INDEX CONCURRENTLY IF EXISTS "customer_team_id_notes_id";
CREATE INDEX CONCURRENTLY "customer_team_id_notes_id" ON "customers" ("team_id", "notes", "id");`
	wantUnique := `DROP INDEX CONCURRENTLY IF EXISTS "customers_badge_key";
CREATE UNIQUE INDEX CONCURRENTLY "customers_badge_key" ON "customers" ("badge");`
	if !strings.Contains(p.builds, want) || !strings.Contains(p.builds, wantUnique) {
		t.Fatalf("want the builds\n%s\n%s\ngot\n%s", want, wantUnique, p.builds)
	}

	// The builds are the next version, for both databases: a file applied
	// one statement at a time on PostgreSQL, one that changes nothing on
	// SQLite.
	files := migrationSet("m", map[string]plan{migrate.SQLite: {sql: "ALTER TABLE x;\n"}, migrate.Postgres: p}, 9, "notes")
	pg, lite := string(files["m/postgres/0010_notes_indexes.sql"]), string(files["m/sqlite/0010_notes_indexes.sql"])
	if len(files) != 4 || (migrate.Migration{SQL: pg}).Transactional() || !strings.Contains(pg, want) ||
		!strings.Contains(lite, "No change") || strings.Contains(string(files["m/postgres/0009_notes.sql"]), "INDEX") {
		t.Fatalf("want 0009_notes.sql and 0010_notes_indexes.sql for each database; got %v", slices.Sorted(maps.Keys(files)))
	}
	// A member made sortable changes nothing else on PostgreSQL: the
	// version's own file is the build.
	files = migrationSet("m", map[string]plan{migrate.SQLite: {sql: "CREATE INDEX x;\n"}, migrate.Postgres: {builds: want}}, 9, "sorted")
	pg = string(files["m/postgres/0009_sorted.sql"])
	if len(files) != 2 || (migrate.Migration{SQL: pg}).Transactional() || !strings.Contains(pg, want) {
		t.Fatalf("want one file a database, PostgreSQL's applied outside a transaction; got %v:\n%s", slices.Sorted(maps.Keys(files)), pg)
	}
	if !(migrate.Migration{SQL: string(files["m/sqlite/0009_sorted.sql"])}).Transactional() {
		t.Fatal("SQLite's file is applied in a transaction")
	}
}

// A change SQLite makes by rebuilding the events table — a column made
// optional — applies, though every event trigger names the table the
// rebuild drops and renames.
func TestSQLiteRebuildsTheEventsTable(t *testing.T) {
	tables, err := schemaTables(repoGraph(t), migrate.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == "events" {
			c, _ := tb.Column("record_id")
			c.Nullable = true
		}
	}
	set, _ := readMigrations(repoConfig(), migrate.SQLite)
	sql := diffOn(t, migrate.SQLite, set, tables).sql
	for _, want := range []string{"ALTER TABLE `new_events` RENAME TO `events`;", "PRAGMA legacy_alter_table = on;"} {
		if !strings.Contains(sql, want) {
			t.Fatalf("want the migration to contain\n%s\ngot\n%s", want, sql)
		}
	}
}

func TestPlanFormatterIsStable(t *testing.T) {
	set, _ := readMigrations(repoConfig(), migrate.SQLite)
	if len(set) == 0 {
		t.Fatal("no committed SQLite migrations")
	}
	if !strings.HasPrefix(set[0].SQL, migrationHeader) {
		t.Errorf("migration %s lacks the generated-file header", set[0].Name)
	}
}

func TestWriteAndChanges(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("owned/same.go", "same")
	write("owned/old.go", "old")
	write("owned/gone/stale.go", "stale")
	write("elsewhere/keep.go", "not ours")
	same := filepath.Join(root, "owned/same.go")
	before, _ := os.Stat(same)

	out := &Output{
		Files: map[string][]byte{
			"owned/same.go":     []byte("same"),
			"owned/old.go":      []byte("new"),
			"owned/sub/made.go": []byte("made"),
			"elsewhere/new.sql": []byte("sql"),
		},
		Owned: []string{"owned"},
	}
	changes, err := out.Changes(root)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, c := range changes {
		got = append(got, c.Kind+" "+c.Path)
	}
	want := "create elsewhere/new.sql|delete owned/gone/stale.go|update owned/old.go|create owned/sub/made.go"
	if strings.Join(got, "|") != want {
		t.Fatalf("changes:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if _, err := out.Write(root); err != nil {
		t.Fatal(err)
	}
	if again, _ := out.Changes(root); len(again) != 0 {
		t.Fatalf("after Write nothing may differ, got %v", again)
	}
	if _, err := os.Stat(filepath.Join(root, "owned/gone")); !os.IsNotExist(err) {
		t.Error("an emptied folder was left behind")
	}
	if _, err := os.Stat(filepath.Join(root, "elsewhere/keep.go")); err != nil {
		t.Error("a file outside the owned folders was touched")
	}
	after, _ := os.Stat(same)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	ctx := context.Background()
	cfg := repoConfig()
	cfg.DevPostgresURL = "" // migrations are checked above; this is about bytes
	first, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Files) != len(second.Files) {
		t.Fatalf("%d files, then %d", len(first.Files), len(second.Files))
	}
	for p, b := range first.Files {
		if string(second.Files[p]) != string(b) {
			t.Errorf("%s differs between two generations", p)
		}
	}
}

// With no PostgreSQL at hand, a schema change's PostgreSQL migration is
// written in a throw-away cluster.
func TestAThrowAwayPostgresWritesTheMigration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	tables, err := schemaTables(repoGraph(t), migrate.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == "customers" {
			tb.AddColumn(&schema.Column{Name: "notes", Type: field.TypeString, Nullable: true})
		}
	}
	events, err := eventTables(repoGraph(t), tables)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := readMigrations(repoConfig(), migrate.Postgres)
	p, err := diffInThrowAwayPostgres(context.Background(), set, tables, events)
	if errors.Is(err, scratch.ErrNoPostgres) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := `ALTER TABLE "customers" ADD COLUMN "notes" character varying NULL;`; !strings.Contains(p.sql, want) {
		t.Fatalf("want the migration to contain %s, got\n%s", want, p.sql)
	}
}

// SQLite's table rebuilds drop the old table after copying it: not a loss.
// A table or column dropped outright is.
func TestDataLoss(t *testing.T) {
	rebuild := "CREATE TABLE `new_customers` (`id` text);\nINSERT INTO `new_customers` SELECT `id` FROM `customers`;\nDROP TABLE `customers`;\nALTER TABLE `new_customers` RENAME TO `customers`;\n"
	if got := dataLoss(rebuild); len(got) != 0 {
		t.Fatalf("a rebuild read as a loss: %v", got)
	}
	got := dataLoss("DROP TABLE \"vendors\";\nALTER TABLE \"customers\" DROP COLUMN \"phone\";\n")
	if len(got) != 2 || !strings.Contains(got[0], "vendors") || !strings.Contains(got[1], "customers.phone") {
		t.Fatalf("%v", got)
	}
}

// A required member added to a table that exists needs a default, or
// generate refuses it, naming where the schema declares it.
func TestANewRequiredMemberNeedsADefault(t *testing.T) {
	graph := repoGraph(t)
	cfg := DefaultConfig()
	cfg.Root = "../.."
	err := requiredNeedsDefault(cfg, graph, `ALTER TABLE "customers" ADD COLUMN "email" character varying NOT NULL, ADD COLUMN "x" bigint NULL;`)
	if err == nil || !strings.Contains(err.Error(), "schema/customer.go:") ||
		!strings.Contains(err.Error(), "the new required member email of Customer needs a Default") {
		t.Fatalf("want the member refused where it is declared, got %v", err)
	}
	for _, fine := range []string{
		`ALTER TABLE "customers" ADD COLUMN "email" character varying NOT NULL DEFAULT 'none';`,
		`ALTER TABLE "customers" ADD COLUMN "email" character varying NULL;`,
		`CREATE TABLE "shipments" ("id" character varying NOT NULL, "carrier" character varying NOT NULL);`,
	} {
		if err := requiredNeedsDefault(cfg, graph, fine); err != nil {
			t.Errorf("%s: %v", fine, err)
		}
	}
}

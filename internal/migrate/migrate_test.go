package migrate_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/migrations"
	"records/internal/tenant"
)

func forEachDialect(t *testing.T, fn func(t *testing.T, dialect string)) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// plus returns set with extra migrations appended, leaving set alone.
func plus(set []migrate.Migration, extra ...migrate.Migration) []migrate.Migration {
	return append(append([]migrate.Migration(nil), set...), extra...)
}

func TestApplyFromEmptyThenAgain(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.OpenEmpty(t, dialect)
		set, err := migrations.For(dialect)
		if err != nil || len(set) == 0 {
			t.Fatalf("no migrations for %s: %v", dialect, err)
		}
		pending, err := migrate.Pending(ctx, database.SQL, dialect, set)
		if err != nil || len(pending) != len(set) {
			t.Fatalf("on an empty database all %d migrations are pending; got %d (%v)", len(set), len(pending), err)
		}
		applied, err := migrate.Apply(ctx, database.SQL, dialect, set)
		if err != nil || len(applied) != len(set) {
			t.Fatalf("first apply: applied %d of %d: %v", len(applied), len(set), err)
		}
		again, err := migrate.Apply(ctx, database.SQL, dialect, set)
		if err != nil || len(again) != 0 {
			t.Fatalf("second apply must be a no-op: applied %d: %v", len(again), err)
		}
		if err := database.CheckSchema(ctx); err != nil {
			t.Fatalf("schema check after migrating: %v", err)
		}
		// The tables exist: the ent client can use them.
		if _, err := dbtest.Ent(database).Team.Query().Count(ctx); err != nil {
			t.Fatalf("querying a migrated table: %v", err)
		}
	})
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.Open(t, dialect)
		set, _ := migrations.For(dialect)
		newer := plus(set, migrate.Migration{
			Version: 9999, Name: "9999_from_the_future.sql", SQL: "CREATE TABLE future (id INTEGER)", Checksum: "x",
		})
		if _, err := migrate.Apply(ctx, database.SQL, dialect, newer); err != nil {
			t.Fatalf("applying the newer set: %v", err)
		}
		_, err := migrate.Apply(ctx, database.SQL, dialect, set)
		if !errors.Is(err, migrate.ErrNewerDatabase) || !strings.Contains(err.Error(), "9999_from_the_future.sql") {
			t.Fatalf("an older binary must refuse the database, naming the unknown migration; got %v", err)
		}
		if err := database.CheckSchema(ctx); !errors.Is(err, migrate.ErrNewerDatabase) {
			t.Fatalf("CheckSchema must refuse too; got %v", err)
		}
	})
}

func TestEditedMigrationIsRefused(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.Open(t, dialect)
		set, _ := migrations.For(dialect)
		edited := plus(set)
		edited[0].Checksum = "edited"
		_, err := migrate.Apply(ctx, database.SQL, dialect, edited)
		if err == nil || !strings.Contains(err.Error(), set[0].Name) {
			t.Fatalf("an applied migration that changed must be refused by name; got %v", err)
		}
	})
}

func TestFailedMigrationLeavesNothing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.Open(t, dialect)
		set, _ := migrations.For(dialect)
		broken := plus(set, migrate.Migration{
			Version: 9000, Name: "9000_broken.sql",
			SQL:      "CREATE TABLE half_done (id INTEGER); SELECT * FROM no_such_table",
			Checksum: "y",
		})
		if _, err := migrate.Apply(ctx, database.SQL, dialect, broken); err == nil || !strings.Contains(err.Error(), "9000_broken.sql") {
			t.Fatalf("a failing migration must fail by name; got %v", err)
		}
		if _, err := database.SQL.ExecContext(ctx, "SELECT * FROM half_done"); err == nil {
			t.Fatal("the failed migration's first statement was kept")
		}
		if pending, err := migrate.Pending(ctx, database.SQL, dialect, broken); err != nil || len(pending) != 1 {
			t.Fatalf("the failed migration must stay pending: %v %v", pending, err)
		}
	})
}

// A file marked NoTransaction runs its statements one at a time outside a
// transaction — on PostgreSQL, CREATE INDEX CONCURRENTLY, which refuses to
// run inside one — and is recorded once they have all run.
func TestIndexBuiltOutsideATransaction(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.Open(t, dialect)
		withIndex := tableThenIndex(dialect, 9002, "notes", "body", "", "(1, 'a'), (2, 'b')")
		if withIndex[len(withIndex)-1].Transactional() || !withIndex[len(withIndex)-2].Transactional() {
			t.Fatal("only the marked file is applied outside a transaction")
		}
		applied, err := migrate.Apply(ctx, database.SQL, dialect, withIndex)
		if err != nil || len(applied) != 2 {
			t.Fatalf("applying the index build: %d applied, %v", len(applied), err)
		}
		if valid := indexState(t, database.SQL, dialect, "notes_body"); valid != "valid" {
			t.Fatalf("the index is %s", valid)
		}
		if pending, err := migrate.Pending(ctx, database.SQL, dialect, withIndex); err != nil || len(pending) != 0 {
			t.Fatalf("the index build must be recorded: pending %v, %v", pending, err)
		}
	})
}

// A unique index build that fails (a value twice) is not recorded and
// leaves no index behind — on PostgreSQL a failed CONCURRENTLY build leaves
// an invalid index that would still be written on every insert — and runs
// again, whole, once the values are fixed.
func TestFailedIndexBuildLeavesNoIndex(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.Open(t, dialect)
		withIndex := tableThenIndex(dialect, 9004, "tags", "name", "UNIQUE ", "(1, 'x'), (2, 'x')")
		_, err := migrate.Apply(ctx, database.SQL, dialect, withIndex)
		if err == nil || !strings.Contains(err.Error(), "9005_tags_indexes.sql") {
			t.Fatalf("a failing index build must fail by name; got %v", err)
		}
		if state := indexState(t, database.SQL, dialect, "tags_name"); state != "absent" {
			t.Fatalf("the failed build left the index %s", state)
		}
		if pending, err := migrate.Pending(ctx, database.SQL, dialect, withIndex); err != nil || len(pending) != 1 || pending[0].Version != 9005 {
			t.Fatalf("the failed build must stay pending, alone: %v, %v", pending, err)
		}
		if _, err := database.SQL.ExecContext(ctx, "UPDATE tags SET name = 'y' WHERE id = 2"); err != nil {
			t.Fatal(err)
		}
		if applied, err := migrate.Apply(ctx, database.SQL, dialect, withIndex); err != nil || len(applied) != 1 {
			t.Fatalf("the build once the values are fixed: %d applied, %v", len(applied), err)
		}
		if state := indexState(t, database.SQL, dialect, "tags_name"); state != "valid" {
			t.Fatalf("the index is %s", state)
		}
	})
}

// tableThenIndex is the committed migrations of dialect and two more, at
// version and the next: one makes table, with an id and column, holding
// rows; the other, marked NoTransaction, builds the index table_column
// (kind "" or "UNIQUE ") as the generator writes it: on PostgreSQL
// CONCURRENTLY, after a DROP of what a failed build would have left.
func tableThenIndex(dialect string, version int, table, column, kind, rows string) []migrate.Migration {
	set, _ := migrations.For(dialect)
	name := table + "_" + column
	build := fmt.Sprintf("CREATE %sINDEX %s ON %s (%s);", kind, name, table, column)
	if dialect == migrate.Postgres {
		build = fmt.Sprintf("DROP INDEX CONCURRENTLY IF EXISTS %q;\nCREATE %sINDEX CONCURRENTLY %q ON %q (%q);", name, kind, name, table, column)
	}
	return plus(set,
		migrate.Migration{Version: version, Name: fmt.Sprintf("%d_%s.sql", version, table), Checksum: "a",
			SQL: fmt.Sprintf("CREATE TABLE %s (id INTEGER PRIMARY KEY, %s TEXT); INSERT INTO %s VALUES %s;", table, column, table, rows)},
		migrate.Migration{Version: version + 1, Name: fmt.Sprintf("%d_%s_indexes.sql", version+1, table), Checksum: "b",
			SQL: "-- Built while writes go on.\n" + migrate.NoTransaction + "\n" + build + "\n"},
	)
}

// indexState says whether the index name exists and, on PostgreSQL, is
// valid: "absent", "valid" or "invalid".
func indexState(t *testing.T, db *sql.DB, dialect, name string) string {
	t.Helper()
	q := `SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`
	if dialect == migrate.Postgres {
		q = `SELECT CASE WHEN i.indisvalid THEN 1 ELSE 0 END FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`
	}
	var valid int
	switch err := db.QueryRow(q, name).Scan(&valid); {
	case errors.Is(err, sql.ErrNoRows):
		return "absent"
	case err != nil:
		t.Fatal(err)
	}
	if valid == 1 {
		return "valid"
	}
	return "invalid"
}

// A SQLite table rebuild drops the old table; with foreign keys on, that
// would cascade into the children. Apply switches them off around it.
func TestSQLiteTableRebuildKeepsChildren(t *testing.T) {
	database := dbtest.Open(t, migrate.SQLite)
	c := dbtest.Ent(database)
	c.Team.Create().SetID(1).SetName("default").ExecX(context.Background())
	ctx := tenant.WithTeam(context.Background(), 1)
	c.ReturnRecord.Create().SetID("r1").ExecX(ctx)
	c.ReturnLineItem.Create().SetID("l1").SetReturnID("r1").ExecX(ctx)

	set, _ := migrations.For(migrate.SQLite)
	rebuild := plus(set, migrate.Migration{
		Version: 9001, Name: "9001_rebuild_returns.sql", Checksum: "z",
		SQL: "CREATE TABLE `new_returns` AS SELECT * FROM `returns`; DROP TABLE `returns`; ALTER TABLE `new_returns` RENAME TO `returns`; CREATE UNIQUE INDEX `returns_id` ON `returns` (`id`);",
	})
	if _, err := migrate.Apply(ctx, database.SQL, migrate.SQLite, rebuild); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	if n := c.ReturnLineItem.Query().CountX(ctx); n != 1 {
		t.Fatalf("rebuilding the parent table deleted its children: %d left", n)
	}
}

func TestReadRejectsMalformedNames(t *testing.T) {
	fsys := fstest.MapFS{"m/0001_init.sql": {Data: []byte("x")}, "m/2_bad name.sql": {Data: []byte("y")}}
	if _, err := migrate.Read(fsys, "m"); err == nil || !strings.Contains(err.Error(), "2_bad name.sql") {
		t.Fatalf("want an error naming the malformed file, got %v", err)
	}
	dup := fstest.MapFS{"m/0001_a.sql": {Data: []byte("x")}, "m/0001_b.sql": {Data: []byte("y")}}
	if _, err := migrate.Read(dup, "m"); err == nil {
		t.Fatal("two files with one version must be refused")
	}
}

// A database written before migration 0006 (one event trigger per row on
// PostgreSQL) keeps its events, and records every change after it with the
// triggers that replaced them (one per statement): multi-row statements
// included, in order, each row's image its own.
func TestEventsSurviveTheStatementTriggers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.OpenEmpty(t, dialect)
		set, err := migrations.For(dialect)
		if err != nil {
			t.Fatal(err)
		}
		at := slices.IndexFunc(set, func(m migrate.Migration) bool { return m.Version == 6 })
		if at < 0 {
			t.Fatal("no migration 0006")
		}
		if _, err := migrate.Apply(ctx, database.SQL, dialect, set[:at]); err != nil {
			t.Fatal(err)
		}
		exec := func(q string) {
			t.Helper()
			if _, err := database.SQL.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP)`)
		exec(`INSERT INTO customers (id, team_id, version, email) VALUES ('before', 1, 1, 'b@example.com')`)
		if _, err := migrate.Apply(ctx, database.SQL, dialect, set); err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO customers (id, team_id, version, email) VALUES ('a', 1, 1, 'a@example.com'), ('b', 1, 1, 'b@example.com')`)
		exec(`UPDATE customers SET version = version + 1, email = 'x-' || id WHERE id IN ('a', 'b', 'before')`)
		exec(`UPDATE customers SET email = 'none' WHERE id = 'nope'`)
		exec(`DELETE FROM customers WHERE id IN ('a', 'before')`)

		rows, err := database.SQL.QueryContext(ctx, `SELECT type, record_id, image FROM events ORDER BY txid, id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var typ, id string
			var image *string
			if err := rows.Scan(&typ, &id, &image); err != nil {
				t.Fatal(err)
			}
			line := typ + " " + id
			if image != nil {
				var row struct {
					ID    string `json:"id"`
					Email string `json:"email"`
				}
				if err := json.Unmarshal([]byte(*image), &row); err != nil || row.ID != id {
					t.Fatalf("%s: image %s (%v)", line, *image, err)
				}
				line += " " + row.Email
			}
			got = append(got, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		// The order of one statement's rows is the database's; compare
		// each statement's events as a set.
		want := [][]string{
			{"customers.created before b@example.com"},
			{"customers.created a a@example.com", "customers.created b b@example.com"},
			{"customers.updated a x-a", "customers.updated b x-b", "customers.updated before x-before"},
			// A row erased is purged: since the trash (0015), a record
			// deleted through the API is an update that sets deleted_at.
			{"customers.purged a", "customers.purged before"},
		}
		for _, stmt := range want {
			if len(got) < len(stmt) {
				t.Fatalf("events %q, want %q", got, want)
			}
			head := slices.Clone(got[:len(stmt)])
			slices.Sort(head)
			if !slices.Equal(head, stmt) {
				t.Fatalf("events %q, want %q", got, want)
			}
			got = got[len(stmt):]
		}
		if len(got) > 0 {
			t.Fatalf("events no statement made: %q", got)
		}
	})
}

// A member made unique over records that share a value, or required over
// records holding null, fails its migration with words naming the table and
// the member; nothing of it is applied, in a transaction or built
// concurrently (PostgreSQL), and it is not recorded.
func TestMigrationTheDataCannotTake(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		database := dbtest.OpenEmpty(t, dialect)
		m := func(version int, name, sql string) migrate.Migration {
			return migrate.Migration{Version: version, Name: fmt.Sprintf("%04d_%s", version, name), SQL: sql, Checksum: name}
		}
		base := []migrate.Migration{m(1, "books", `CREATE TABLE "books" ("id" text PRIMARY KEY, "isbn" text);
INSERT INTO "books" ("id", "isbn") VALUES ('a', '978'), ('b', '978'), ('c', NULL);`)}
		if _, err := migrate.Apply(ctx, database.SQL, dialect, base); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			migration migrate.Migration
			says      string
		}{
			{m(2, "unique", `ALTER TABLE "books" ADD COLUMN "title" text;
CREATE UNIQUE INDEX "books_isbn_key" ON "books" ("isbn");`), "hold the same value of isbn more than once, so it cannot be made unique"},
			{m(2, "required", `ALTER TABLE "books" ADD COLUMN "title" text;
UPDATE "books" SET "isbn" = NULL WHERE "isbn" IS NULL AND "id" = 'c';
`+notNull(dialect)), "hold null in isbn, so it cannot be made required"},
		}
		if dialect == migrate.Postgres {
			cases = append(cases, struct {
				migration migrate.Migration
				says      string
			}{m(2, "unique_build", migrate.NoTransaction+"\nCREATE UNIQUE INDEX CONCURRENTLY \"books_isbn_key\" ON \"books\" (\"isbn\");"),
				"hold the same value of isbn more than once"})
		}
		for _, c := range cases {
			_, err := migrate.Apply(ctx, database.SQL, dialect, append(base, c.migration))
			var de *migrate.DataError
			if !errors.As(err, &de) || de.Table != "books" || de.Column != "isbn" || !strings.Contains(err.Error(), c.says) ||
				!strings.Contains(err.Error(), c.migration.Name) {
				t.Fatalf("%s: want the data named, got %v", c.migration.Name, err)
			}
			var title, indexes int
			database.SQL.QueryRow(columnCount(dialect, "books", "title")).Scan(&title)
			database.SQL.QueryRow(indexCount(dialect, "books_isbn_key")).Scan(&indexes)
			pending, _ := migrate.Pending(ctx, database.SQL, dialect, append(base, c.migration))
			if title != 0 || indexes != 0 || len(pending) != 1 {
				t.Fatalf("%s: half applied: column %d, index %d, pending %d", c.migration.Name, title, indexes, len(pending))
			}
		}
	})
}

func notNull(dialect string) string {
	if dialect == migrate.Postgres {
		return `ALTER TABLE "books" ALTER COLUMN "isbn" SET NOT NULL;`
	}
	// SQLite alters a column by rebuilding the table, as the generated
	// migrations do.
	return `CREATE TABLE "new_books" ("id" text PRIMARY KEY, "isbn" text NOT NULL, "title" text);
INSERT INTO "new_books" ("id", "isbn", "title") SELECT "id", "isbn", "title" FROM "books";
DROP TABLE "books";
ALTER TABLE "new_books" RENAME TO "books";`
}

func columnCount(dialect, table, column string) string {
	if dialect == migrate.Postgres {
		return fmt.Sprintf(`SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '%s' AND column_name = '%s'`, table, column)
	}
	return fmt.Sprintf(`SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'`, table, column)
}

func indexCount(dialect, name string) string {
	if dialect == migrate.Postgres {
		return fmt.Sprintf(`SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '%s'`, name)
	}
	return fmt.Sprintf(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '%s'`, name)
}

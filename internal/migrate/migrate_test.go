package migrate_test

import (
	"context"
	"errors"
	"fmt"
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

package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/migrations"
)

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

func indexCount(dialect, name string) string {
	if dialect == migrate.Postgres {
		return fmt.Sprintf(`SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '%s'`, name)
	}
	return fmt.Sprintf(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '%s'`, name)
}

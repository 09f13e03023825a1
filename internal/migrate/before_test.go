package migrate_test

import (
	"context"
	"slices"
	"testing"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/migrations"
)

// stoppedBefore is a fresh database of dialect with the migrations before
// version applied, for a test that writes what the migration must keep.
type stoppedBefore struct {
	t        *testing.T
	dialect  string
	database *db.DB
	set      []migrate.Migration
}

// migratedUpTo opens a database of dialect with every migration before
// version applied.
func migratedUpTo(t *testing.T, dialect string, version int) stoppedBefore {
	t.Helper()
	database := dbtest.OpenEmpty(t, dialect)
	set, err := migrations.For(dialect)
	if err != nil {
		t.Fatal(err)
	}
	at := slices.IndexFunc(set, func(m migrate.Migration) bool { return m.Version == version })
	if at < 0 {
		t.Fatalf("no migration %04d", version)
	}
	if _, err := migrate.Apply(context.Background(), database.SQL, dialect, set[:at]); err != nil {
		t.Fatal(err)
	}
	return stoppedBefore{t, dialect, database, set}
}

// exec runs a statement, failing the test if it fails.
func (s stoppedBefore) exec(q string, args ...any) {
	s.t.Helper()
	if _, err := s.database.SQL.ExecContext(context.Background(), q, args...); err != nil {
		s.t.Fatalf("%s: %v", q, err)
	}
}

// finish applies the rest of the migrations.
func (s stoppedBefore) finish() {
	s.t.Helper()
	if _, err := migrate.Apply(context.Background(), s.database.SQL, s.dialect, s.set); err != nil {
		s.t.Fatal(err)
	}
}

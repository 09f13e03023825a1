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
	s.finishBefore(0)
}

// finishBefore applies the rest of the migrations before version (all
// of them for 0): for a test of what a migration keeps that a later one
// changes on purpose.
func (s stoppedBefore) finishBefore(version int) {
	s.t.Helper()
	set := s.set
	if version > 0 {
		set = set[:slices.IndexFunc(set, func(m migrate.Migration) bool { return m.Version == version })]
	}
	if _, err := migrate.Apply(context.Background(), s.database.SQL, s.dialect, set); err != nil {
		s.t.Fatal(err)
	}
}

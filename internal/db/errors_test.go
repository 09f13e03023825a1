package db_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"slices"
	"testing"
	"time"

	"records/internal/db"
	"records/internal/dbtest"
)

// The database's failures leave package db typed by the drivers' own codes,
// on both databases, and still unwrap to the driver's error.
func TestErrorsAreTypedWhereTheyArise(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		ctx := context.Background()
		exec := func(q string, args ...any) error {
			_, err := database.Exec(ctx, q, args...)
			return err
		}
		if err := exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'default', ?)`, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		if err := exec(`INSERT INTO users (id, team_id, username) VALUES ('u1', 1, 'ann')`); err != nil {
			t.Fatal(err)
		}

		t.Run("a taken id is a conflict on the id", func(t *testing.T) {
			err := exec(`INSERT INTO users (id, team_id) VALUES ('u1', 1)`)
			wantConflict(t, err, "users", []string{"id"})
		})
		t.Run("a taken unique member is a conflict naming its columns", func(t *testing.T) {
			err := exec(`INSERT INTO users (id, team_id, username) VALUES ('u2', 1, 'ann')`)
			wantConflict(t, err, "users", []string{"team_id", "username"})
		})
		t.Run("a missing parent", func(t *testing.T) {
			err := exec(`INSERT INTO return_line_items (id, team_id, return_id) VALUES ('li', 1, 'no-such-return')`)
			if !errors.Is(err, db.ErrMissingParent) {
				t.Fatalf("want ErrMissingParent, got %v", err)
			}
		})
		if database.Postgres() { // SQLite's index entries have no bound
			t.Run("a text too large for an index entry is a bad value", func(t *testing.T) {
				rnd := rand.New(rand.NewSource(1))
				b := make([]byte, 3000) // random letters: no compression fits them in 2,704 bytes
				for i := range b {
					b[i] = byte('a' + rnd.Intn(26))
				}
				err := exec(`INSERT INTO users (id, team_id, username) VALUES ('u3', 1, ?)`, string(b))
				if !errors.Is(err, db.ErrBadValue) {
					t.Fatalf("want ErrBadValue, got %v", err)
				}
			})
		}
		t.Run("a caller that gave up", func(t *testing.T) {
			gone, cancel := context.WithCancel(ctx)
			cancel()
			err := database.Each(gone, -1, `SELECT "id" FROM "users" WHERE "team_id" = ?`, []any{1}, func(*sql.Rows) error { return nil })
			if !errors.Is(err, db.ErrCanceled) {
				t.Fatalf("want ErrCanceled, got %v", err)
			}
		})
		t.Run("a deadline that passed", func(t *testing.T) {
			late, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
			defer cancel()
			err := database.Each(late, -1, `SELECT "id" FROM "users" WHERE "team_id" = ?`, []any{1}, func(*sql.Rows) error { return nil })
			if !errors.Is(err, db.ErrUnavailable) {
				t.Fatalf("want ErrUnavailable, got %v", err)
			}
		})
		t.Run("an error of no known kind passes as it is", func(t *testing.T) {
			err := exec(`SELECT no_such_column FROM users`)
			if err == nil || errors.Is(err, db.ErrUnavailable) || errors.Is(err, db.ErrConflict) ||
				errors.Is(err, db.ErrMissingParent) || errors.Is(err, db.ErrCanceled) {
				t.Fatalf("want an untyped error, got %v", err)
			}
		})
	})
}

func wantConflict(t *testing.T, err error, table string, columns []string) {
	t.Helper()
	var ce *db.ConflictError
	if !errors.Is(err, db.ErrConflict) || !errors.As(err, &ce) {
		t.Fatalf("want a conflict, got %v", err)
	}
	if ce.Table != table || !slices.Equal(ce.Columns, columns) {
		t.Fatalf("conflict on %s %v, want %s %v", ce.Table, ce.Columns, table, columns)
	}
	if errors.Unwrap(err) == nil {
		t.Fatal("a typed error must unwrap to the driver's")
	}
}

// A database that cannot be reached is unavailable, not a fault of the
// request: PostgreSQL on a port where nothing listens.
func TestAnUnreachableDatabaseIsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := db.Open(ctx, db.Config{URL: "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"})
	if !errors.Is(err, db.ErrUnavailable) {
		t.Fatalf("want ErrUnavailable, got %v", err)
	}
}

// Package scratch makes throw-away databases: an empty PostgreSQL schema in
// an existing database, or an in-memory SQLite. The generator diffs
// migrations against them, and tests run against them.
package scratch

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"records/internal/spec"
	"strings"
	"time"

	"github.com/lib/pq"
	_ "github.com/lib/pq"  // registers "postgres"
	_ "modernc.org/sqlite" // registers "sqlite"
)

// PostgresSchema creates an empty schema named prefix plus a random suffix in
// the database at baseURL. It returns a URL whose connections use that schema
// (through search_path) and a function that drops it with everything in it.
func PostgresSchema(ctx context.Context, baseURL, prefix string) (schemaURL string, drop func() error, err error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL URL: %w", err)
	}
	admin, err := sql.Open("postgres", baseURL)
	if err != nil {
		return "", nil, err
	}
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return "", nil, err
	}
	name := prefix + "_" + suffix()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		admin.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop = func() error {
		// A server stopped just before may leave a backend finishing a
		// statement on the schema; the DROP that deadlocks with it is
		// tried again once the other has gone.
		var err error
		for try := 0; try < 5; try++ {
			if _, err = admin.ExecContext(context.Background(), `DROP SCHEMA `+name+` CASCADE`); !isDeadlock(err) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		return errors.Join(err, admin.Close())
	}
	return u.String(), drop, nil
}

// isDeadlock tells PostgreSQL's deadlock_detected.
func isDeadlock(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// SQLiteMemory opens an empty in-memory SQLite database with foreign keys on
// and ALTER TABLE as migrations run it (legacy_alter_table, see
// migrate.Apply). It keeps a single connection, which holds the database.
func SQLiteMemory() (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file::memory:?_pragma=foreign_keys(1)&_pragma=legacy_alter_table(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, db.Ping()
}

func suffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EnsureDatabase creates the database name on the server of adminURL
// unless it exists, with the options of CREATE DATABASE given in with
// ("TEMPLATE template0 …", or ""). Another process creating it meanwhile
// is no failure.
func EnsureDatabase(ctx context.Context, adminURL, name, with string) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil || exists {
		return err
	}
	_, err = admin.ExecContext(ctx, strings.TrimSpace("CREATE DATABASE "+spec.Ident(name)+" "+with))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && (pqErr.Code == "42P04" || pqErr.Code == "23505") { // duplicate_database, or its catalog row
		return nil
	}
	return err
}

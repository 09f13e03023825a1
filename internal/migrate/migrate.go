// Package migrate applies versioned migration files to a database and tells
// which are pending. The files themselves are generated from the ent schema by
// recordsgen and embedded by package migrations; this package only reads them.
//
// A file is named NNNN_name.sql. Applied versions are recorded, with a
// checksum of the file, in the table schema_migrations. A database that holds
// a version this binary does not know is refused: it was migrated by a newer
// binary, and an older one must not write to it.
//
// Each file is applied in one transaction, but for a file marked
// NoTransaction: its statements run one at a time outside any, as
// PostgreSQL's CREATE INDEX CONCURRENTLY must, and its version is recorded
// once the last has run.
package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"records/internal/spec"
)

// Dialect names, as ent spells them (package spec names them once).
const (
	SQLite   = spec.SQLite
	Postgres = spec.Postgres
)

// Dirs maps each dialect to the folder of its migration files, relative to
// package migrations, which embeds them.
var Dirs = map[string]string{
	SQLite:   "sqlite",
	Postgres: "postgres",
}

// Table records the applied migrations.
const Table = "schema_migrations"

// NoTransaction, a line of its own in a migration file, has the file applied
// outside a transaction, one statement at a time. Such a file holds one
// statement per line (comment lines aside), each safe to run again after a
// failure: the version is recorded only once every statement has run, so a
// file that failed midway runs from its start next time.
const NoTransaction = "-- records:no-transaction"

// Migration is one versioned migration file.
type Migration struct {
	Version  int
	Name     string // the file name, e.g. 0001_init.sql
	SQL      string
	Checksum string // hex SHA-256 of SQL
}

var fileName = regexp.MustCompile(`^(\d{4,})_([a-z0-9_]+)\.sql$`)

// Read parses the migration files in dir of fsys, ordered by version. Files
// that are not migrations (other extensions) are ignored; a .sql file with a
// malformed name or a duplicate version is an error.
func Read(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %s: name must be NNNN_name.sql", path.Join(dir, e.Name()))
		}
		v, _ := strconv.Atoi(m[1])
		if prev, ok := seen[v]; ok {
			return nil, fmt.Errorf("migration files %s and %s share version %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b), Checksum: checksum(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

func checksum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ErrNewerDatabase reports a database migrated by a newer binary.
var ErrNewerDatabase = errors.New("the database was migrated by a newer version of this program")

// Pending returns the migrations of set that db has not applied yet, after
// checking that everything db has applied belongs to set unchanged.
func Pending(ctx context.Context, db *sql.DB, dialect string, set []Migration) ([]Migration, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	exists, err := tableExists(ctx, conn, dialect)
	if err != nil || !exists {
		return set, err
	}
	return pending(ctx, conn, set)
}

// tableExists tells whether the migrations table exists, without creating it:
// Pending must not write.
func tableExists(ctx context.Context, conn *sql.Conn, dialect string) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '` + Table + `'`
	if dialect == Postgres {
		q = `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = '` + Table + `'`
	}
	var n int
	err := conn.QueryRowContext(ctx, q).Scan(&n)
	return n > 0, err
}

// Apply applies the pending migrations of set in order, each in its own
// transaction, and returns those it applied. Concurrent callers on PostgreSQL
// are serialized with an advisory lock, so many instances may start at once.
func Apply(ctx context.Context, db *sql.DB, dialect string, set []Migration) (applied []Migration, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	switch dialect {
	case Postgres:
		// The key is arbitrary but fixed: it names this program's migration lock.
		if err := lockPostgres(ctx, conn); err != nil {
			return nil, err
		}
		defer func() {
			_, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7305512046021)`)
			err = errors.Join(err, uerr)
		}()
	case SQLite:
		// SQLite rebuilds a table to alter it; with foreign keys on, dropping
		// the old table would cascade into its children. The switch only
		// works outside a transaction, so it is set on this connection for
		// the whole run, and each migration is checked before it commits.
		// The rebuild's last step renames the new table to the old name,
		// which SQLite refuses while a view names the table (the search
		// index's queue, gen's search_queue.go: "no such table" at the
		// moment the old one is dropped) unless ALTER TABLE works as it
		// did before 3.25 (legacy_alter_table), when the view simply finds
		// the new table under the old name.
		if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA legacy_alter_table = ON`); err != nil {
			return nil, err
		}
		defer func() {
			_, ferr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
			_, lerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA legacy_alter_table = OFF`)
			err = errors.Join(err, ferr, lerr)
		}()
	default:
		return nil, fmt.Errorf("migrate: unknown dialect %q", dialect)
	}
	if err := ensureTable(ctx, conn); err != nil {
		return nil, err
	}
	todo, err := pending(ctx, conn, set)
	if err != nil {
		return nil, err
	}
	for _, m := range todo {
		if err := applyOne(ctx, conn, dialect, m); err != nil {
			return applied, err
		}
		applied = append(applied, m)
	}
	return applied, nil
}

// lockPostgres takes the migrations' advisory lock, polling for it rather
// than waiting inside pg_advisory_lock: a session waiting in a statement
// holds a snapshot, which a CREATE INDEX CONCURRENTLY of the migrator that
// holds the lock waits for — a deadlock PostgreSQL ends by failing one of
// them (instances starting together, tests migrating side by side).
func lockPostgres(ctx context.Context, conn *sql.Conn) error {
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(7305512046021)`).Scan(&got); err != nil {
			return err
		}
		if got {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// lockPoll is how often a migrator asks for the lock another holds.
const lockPoll = 50 * time.Millisecond

func ensureTable(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+Table+` (
	version BIGINT NOT NULL PRIMARY KEY,
	name TEXT NOT NULL,
	checksum TEXT NOT NULL,
	applied_at TEXT NOT NULL
)`)
	return err
}

func pending(ctx context.Context, conn *sql.Conn, set []Migration) ([]Migration, error) {
	rows, err := conn.QueryContext(ctx, `SELECT version, name, checksum FROM `+Table+` ORDER BY version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	known := make(map[int]Migration, len(set))
	for _, m := range set {
		known[m.Version] = m
	}
	done := map[int]bool{}
	for rows.Next() {
		var (
			v        int
			name, cs string
		)
		if err := rows.Scan(&v, &name, &cs); err != nil {
			return nil, err
		}
		m, ok := known[v]
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: it has migration %s, unknown to this binary. Run the version of the program that made it; "+
				"or, if this is a development database you changed the schema of and then undid the change, empty it with "+
				"`records migrate --reset` (every row is lost)", ErrNewerDatabase, name)
		case m.Checksum != cs:
			return nil, fmt.Errorf("migration %s differs from the one applied to the database (applied migration files must never be edited)", m.Name)
		}
		done[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var todo []Migration
	for _, m := range set {
		if !done[m.Version] {
			todo = append(todo, m)
		}
	}
	return todo, nil
}

// Transactional tells whether m is applied in one transaction (the rule) or
// one statement at a time (a file marked NoTransaction).
func (m Migration) Transactional() bool {
	for line := range strings.Lines(m.SQL) {
		if strings.TrimSpace(line) == NoTransaction {
			return false
		}
	}
	return true
}

// Statements splits a file of one statement per line, as the generator
// writes them, into its statements, leaving out comment and empty lines.
func Statements(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "--") {
			out = append(out, line)
		}
	}
	return out
}

// concurrentIndex matches the index a CREATE INDEX CONCURRENTLY builds.
var concurrentIndex = regexp.MustCompile(`^CREATE (?:UNIQUE )?INDEX CONCURRENTLY (?:IF NOT EXISTS )?("(?:[^"]|"")+")`)

// ConcurrentIndex answers the name, quoted, of the index stmt builds when it
// is a CREATE INDEX CONCURRENTLY.
func ConcurrentIndex(stmt string) (string, bool) {
	m := concurrentIndex.FindStringSubmatch(stmt)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func applyOne(ctx context.Context, conn *sql.Conn, dialect string, m Migration) error {
	if !m.Transactional() {
		return applyEach(ctx, conn, dialect, m)
	}
	err := inTx(ctx, conn, dialect, m, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return explain(m, err)
		}
		if dialect == SQLite {
			return foreignKeyCheck(ctx, tx)
		}
		return nil
	})
	var de *DataError
	if errors.As(err, &de) {
		return de // its words name the migration, and nothing was applied
	}
	return err
}

// applyEach runs the statements of a NoTransaction file one at a time, then
// records its version. A CREATE INDEX CONCURRENTLY that fails leaves an
// invalid index behind, which PostgreSQL still updates on every write (and,
// unique, may still check): it is dropped before the failure is reported.
func applyEach(ctx context.Context, conn *sql.Conn, dialect string, m Migration) error {
	for _, stmt := range Statements(m.SQL) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			if name, ok := ConcurrentIndex(stmt); ok {
				_, derr := conn.ExecContext(context.WithoutCancel(ctx), `DROP INDEX CONCURRENTLY IF EXISTS `+name)
				if derr != nil {
					return fmt.Errorf("migration %s: %w", m.Name, errors.Join(err, derr))
				}
			}
			if de, ok := explain(m, err).(*DataError); ok {
				return de
			}
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return inTx(ctx, conn, dialect, m, func(*sql.Tx) error { return nil })
}

// inTx runs fn and records m as applied, in one transaction.
func inTx(ctx context.Context, conn *sql.Conn, dialect string, m Migration, fn func(tx *sql.Tx) error) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("migration %s: %w", m.Name, err), tx.Rollback())
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	insert := `INSERT INTO ` + Table + ` (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`
	if dialect == Postgres {
		insert = `INSERT INTO ` + Table + ` (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if _, err := tx.ExecContext(ctx, insert, m.Version, m.Name, m.Checksum, now); err != nil {
		return err
	}
	return tx.Commit()
}

// foreignKeyCheck fails when the migration left a row pointing at nothing,
// which SQLite does not check while foreign keys are switched off.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return errors.New("it leaves rows whose foreign keys point at nothing")
	}
	return rows.Err()
}

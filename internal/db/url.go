package db

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"records/internal/migrate"
)

// DefaultURL is the embedded database a fresh checkout serves from.
const DefaultURL = "sqlite:data/records.db"

// source is a parsed database URL: which driver to open with which DSN.
type source struct {
	dialect string // ent's dialect name
	driver  string // database/sql driver name
	dsn     string
	path    string // the SQLite file, for creating its folder
}

// SQLitePragmas are set on every SQLite connection (and the baseline's, in
// bench/, so that both pay for the same durability): foreign keys (ent and the
// cascading deletes need them), write-ahead logging so reads never wait for a
// write, a busy timeout for writers from other processes, transactions that
// take the write lock at BEGIN (no deadlock when a reader would upgrade), and
// times written in one sortable format.
const SQLitePragmas = "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)" +
	"&_pragma=synchronous(NORMAL)&_txlock=immediate&_time_format=sqlite"

// noAutoCheckpoint leaves the service's write-ahead log to its own
// checkpointer (checkpoint.go) rather than to the write that fills it:
// SQLite checkpoints in the committing connection, which in the service
// holds the process's write lock, so every writer waited for it.
const noAutoCheckpoint = "&_pragma=wal_autocheckpoint(0)"

// SQLiteTime is a time as SQLite keeps it (_time_format=sqlite above), for
// a time a trigger writes from a setting rather than from an argument.
func SQLiteTime(t time.Time) string { return t.Format(SQLiteTimeLayout) }

// SQLiteTimeLayout is the layout of the times SQLite keeps.
const SQLiteTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// parseURL reads a database URL: sqlite:PATH, sqlite:///abs/path,
// postgres://… or postgresql://….
func parseURL(raw string) (source, error) {
	switch {
	case raw == "":
		return source{}, errors.New("no database URL given")
	case strings.HasPrefix(raw, "sqlite:"):
		p := strings.TrimPrefix(raw, "sqlite:")
		if strings.HasPrefix(p, "//") {
			p = strings.TrimPrefix(p, "//") // sqlite:///abs/path → /abs/path
		}
		if p == "" {
			return source{}, fmt.Errorf("database URL %q names no file", raw)
		}
		if strings.ContainsAny(p, "?#") {
			return source{}, fmt.Errorf("database URL %q: the file name may not contain ? or #", raw)
		}
		return source{dialect: migrate.SQLite, driver: "sqlite", dsn: "file:" + p + "?" + SQLitePragmas + noAutoCheckpoint, path: p}, nil
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		dsn, err := postgresDSN(raw)
		if err != nil {
			return source{}, fmt.Errorf("database URL %s: %w", redact(raw), err)
		}
		return source{dialect: migrate.Postgres, driver: "postgres", dsn: dsn}, nil
	default:
		return source{}, fmt.Errorf("database URL %q: want sqlite:PATH or postgres://…", redact(raw))
	}
}

// ensureFolder creates the folder of a SQLite file.
func (s source) ensureFolder() error {
	if s.path == "" {
		return nil
	}
	dir := filepath.Dir(s.path)
	if dir == "." {
		return nil
	}
	return os.MkdirAll(dir, 0o755)
}

// redact hides a password in a URL, for messages: a URL of several hosts
// too, which net/url may not parse.
func redact(raw string) string {
	a, ok := splitAuthority(raw)
	if !ok || a.userinfo == "" {
		return raw
	}
	user, _, hasPassword := strings.Cut(a.userinfo, ":")
	if !hasPassword {
		return raw
	}
	return a.scheme + user + ":xxxxx@" + a.hosts + a.rest
}

// IsPostgres tells whether a database URL names PostgreSQL.
func IsPostgres(url string) bool {
	src, err := parseURL(url)
	return err == nil && src.dialect == migrate.Postgres
}

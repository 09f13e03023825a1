// Package dbtest gives tests real databases: a fresh SQLite file and a fresh
// PostgreSQL schema, migrated, per test. There are no mocks of the database.
//
// PostgreSQL is found at TEST_DATABASE_URL (default: the local server's
// database "test"). When it cannot be reached the PostgreSQL half of a test
// is skipped — except under CI=true, where it fails.
package dbtest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"records/ent"
	_ "records/ent/runtime" // registers the schema's defaults and hooks
	"records/internal/db"
	"records/internal/migrate"
	"records/internal/scratch"
)

// DefaultPostgresURL is used when TEST_DATABASE_URL is not set.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable&connect_timeout=5"

// Dialects are the databases every storage and service test runs on.
var Dialects = []string{migrate.SQLite, migrate.Postgres}

// PostgresURL is the PostgreSQL database tests make their schemas in.
func PostgresURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

var (
	reachOnce sync.Once
	reachErr  error
)

// RequirePostgres skips tb (or, under CI, fails it) when PostgreSQL cannot be reached.
func RequirePostgres(tb testing.TB) {
	tb.Helper()
	reachOnce.Do(func() {
		pool, err := sql.Open("postgres", PostgresURL())
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = pool.PingContext(ctx)
			cancel()
			pool.Close()
		}
		reachErr = err
	})
	if reachErr == nil {
		return
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("PostgreSQL at %s is unreachable, and CI requires it: %v", PostgresURL(), reachErr)
	}
	tb.Skipf("PostgreSQL unreachable (set TEST_DATABASE_URL): %v", reachErr)
}

// URL returns the URL of a fresh, empty database of the dialect, removed
// when tb ends.
func URL(tb testing.TB, dialect string) string {
	tb.Helper()
	switch dialect {
	case migrate.SQLite:
		return "sqlite:" + filepath.Join(tb.TempDir(), "records.db")
	case migrate.Postgres, PostgresICU:
		RequirePostgres(tb)
		base := PostgresURL()
		if dialect == PostgresICU {
			base = icuURL(tb)
		}
		u, drop, err := scratch.PostgresSchema(context.Background(), base, "test")
		if err != nil {
			tb.Fatalf("making a PostgreSQL schema: %v", err)
		}
		tb.Cleanup(func() {
			if err := drop(); err != nil {
				tb.Errorf("dropping the PostgreSQL schema: %v", err)
			}
		})
		return u
	default:
		tb.Fatalf("unknown dialect %q", dialect)
		return ""
	}
}

// Open returns a fresh database of the dialect with every migration applied,
// closed when tb ends.
func Open(tb testing.TB, dialect string) *db.DB {
	tb.Helper()
	database := OpenEmpty(tb, dialect)
	if _, err := database.Migrate(context.Background()); err != nil {
		tb.Fatalf("migrating: %v", err)
	}
	return database
}

// OpenEmpty returns a fresh database of the dialect with nothing applied.
func OpenEmpty(tb testing.TB, dialect string) *db.DB {
	tb.Helper()
	u := URL(tb, dialect)
	database, err := db.Open(context.Background(), db.Config{URL: u})
	if err != nil {
		tb.Fatalf("opening the %s database: %v", dialect, err)
	}
	urls.Store(database, u)
	tb.Cleanup(func() { urls.Delete(database); database.Close() })
	return database
}

// urls remembers the URL of every database Open made, for URLOf.
var urls sync.Map

// URLOf is the URL a database from Open was opened with, so that a test
// can open it again, as another process would.
func URLOf(tb testing.TB, database *db.DB) string {
	tb.Helper()
	u, ok := urls.Load(database)
	if !ok {
		tb.Fatal("dbtest.URLOf: the database was not opened by dbtest")
	}
	return u.(string)
}

// Each runs fn as a parallel subtest per dialect, each with a fresh migrated database.
func Each(t *testing.T, fn func(t *testing.T, database *db.DB)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(Name(d), func(t *testing.T) {
			t.Parallel()
			fn(t, Open(t, d))
		})
	}
}

// Name is a dialect's name in test names.
func Name(dialect string) string {
	if dialect == migrate.SQLite {
		return "sqlite"
	}
	return dialect
}

// PostgresICU is PostgreSQL in a database whose default collation is ICU's
// en-US (as on many managed servers), where "_x" sorts before "a" and "a"
// before "B": URL and Open take it as a dialect. Answers must not depend on
// a database's collation, so the tests of text order run here too.
const PostgresICU = "postgres-icu"

// Collations are SQLite, PostgreSQL, and PostgreSQL under PostgresICU.
var Collations = []string{migrate.SQLite, migrate.Postgres, PostgresICU}

var (
	icuOnce sync.Once
	icuBase string
	icuErr  error
)

// icuURL is the URL of the database of PostgresICU on the server of
// PostgresURL, made on first use (and kept: tests make their schemas in it).
func icuURL(tb testing.TB) string {
	tb.Helper()
	icuOnce.Do(func() { icuBase, icuErr = makeICUDatabase(context.Background()) })
	if icuErr != nil {
		tb.Fatalf("making the ICU en-US database: %v", icuErr)
	}
	return icuBase
}

// OtherDatabaseURL is the URL of a database other than PostgresURL's on
// the same server (PostgresICU's), for tests of what the service must not
// notice of its neighbours.
func OtherDatabaseURL(tb testing.TB) string {
	tb.Helper()
	RequirePostgres(tb)
	return icuURL(tb)
}

func makeICUDatabase(ctx context.Context) (string, error) {
	u, err := url.Parse(PostgresURL())
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(u.Path, "/") + "_icu_en_us"
	if err := scratch.EnsureDatabase(ctx, PostgresURL(), name, `TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`); err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Ent returns ent's client over database, its schema's defaults and hooks
// registered (team scoping included).
func Ent(database *db.DB) *ent.Client {
	return ent.NewClient(ent.Driver(database.Driver()))
}

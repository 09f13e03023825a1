package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"records/internal/dbtest"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Do(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestMigrateOnEachDatabase(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			url := dbtest.URL(t, d)
			code, out, errOut := run(t, "migrate", "--database-url", url)
			if code != 0 || !strings.Contains(out, "applied 0001_init.sql") {
				t.Fatalf("first migrate: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = run(t, "migrate", "--database-url", url)
			if code != 0 || !strings.Contains(out, "up to date") {
				t.Fatalf("second migrate: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

func TestBadDatabaseURLs(t *testing.T) {
	for _, url := range []string{"mysql://x", "sqlite:", "sqlite:a?b.db"} {
		code, _, errOut := run(t, "migrate", "--database-url", url)
		if code == 0 || !strings.Contains(errOut, "database URL") {
			t.Errorf("%q: want a database URL error, got exit %d: %s", url, code, errOut)
		}
	}
}

func TestNoMigrateRefusesAnUnmigratedDatabase(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	code, _, errOut := run(t, "serve", "--no-migrate", "--addr", "127.0.0.1:0", "--database-url", url)
	if code == 0 || !strings.Contains(errOut, "records migrate") {
		t.Fatalf("serve --no-migrate on an empty database: exit %d: %s", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "records ") {
		t.Fatalf("version: exit %d: %q", code, out)
	}
}

// migrate --reset empties a database and migrates it afresh; on PostgreSQL
// only with --yes.
func TestMigrateReset(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			url := dbtest.URL(t, d)
			if code, out, errOut := run(t, "token", "create", "--name", "old", "--database-url", url); code != 0 {
				t.Fatalf("token create: %s%s", out, errOut)
			}
			args := []string{"migrate", "--reset", "--database-url", url}
			if d == "postgres" {
				if code, _, errOut := run(t, args...); code == 0 || !strings.Contains(errOut, "--yes") {
					t.Fatalf("--reset on PostgreSQL without --yes: exit %d %s", code, errOut)
				}
				args = append(args, "--yes")
			}
			code, out, errOut := run(t, args...)
			if code != 0 || !strings.Contains(out, "emptied") || !strings.Contains(out, "applied 0001_init.sql") {
				t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
			}
			if _, out, _ := run(t, "token", "list", "--database-url", url); strings.Contains(out, "old") {
				t.Fatalf("a token survived the reset:\n%s", out)
			}
		})
	}
}

// migrate --reset empties a SQLite database in place: a file that is not
// one is refused untouched, and a connection still open to the database
// sees the tables gone rather than a deleted file that takes writes.
func TestMigrateResetEmptiesInPlace(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "migrate", "--reset", "--database-url", "sqlite:"+notes); code == 0 || !strings.Contains(errOut, "not a database") {
		t.Fatalf("--reset of a text file: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(notes); string(b) != "hello\n" {
		t.Fatalf("the text file was changed: %q", b)
	}

	url := "sqlite:" + filepath.Join(dir, "records.db")
	if code, out, errOut := run(t, "token", "create", "--name", "old", "--database-url", url); code != 0 {
		t.Fatalf("token create: %s%s", out, errOut)
	}
	open, err := sql.Open("sqlite", filepath.Join(dir, "records.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if _, err := open.Exec(`SELECT count(*) FROM teams`); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "migrate", "--reset", "--database-url", url); code != 0 {
		t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
	}
	// The connection opened before sees the reset database: the
	// migrations applied afresh, and no token.
	var n int
	if err := open.QueryRow(`SELECT count(*) FROM api_tokens`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the open connection sees %d tokens (%v): it is not on the reset file", n, err)
	}
}

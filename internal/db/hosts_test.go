package db

import (
	"strings"
	"testing"

	"github.com/lib/pq"
)

// A URL of several hosts in libpq's form becomes what lib/pq reads — each
// host with its own port, read-write unless the URL says otherwise — and a
// URL of one host is passed on untouched.
func TestSeveralHostsBecomeLibPQsForm(t *testing.T) {
	cases := []struct{ url, want string }{
		{"postgres://u@db:5432/records?sslmode=disable", "postgres://u@db:5432/records?sslmode=disable"},
		{"postgres://ann:s%27e@h1:5432,h2:5433/records?sslmode=disable",
			`dbname='records' host='h1,h2' password='s\'e' port='5432,5433' sslmode='disable' target_session_attrs='read-write' user='ann'`},
		{"postgresql://h1,[::1]:6000/db?target_session_attrs=any",
			`dbname='db' host='h1,::1' port='5432,6000' target_session_attrs='any'`},
	}
	for _, c := range cases {
		got, err := postgresDSN(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.url, got, c.want)
		}
		cfg, err := pq.NewConfig(got)
		if err != nil {
			t.Fatalf("%s: lib/pq refuses %s: %v", c.url, got, err)
		}
		if strings.Contains(c.url, ",") && len(cfg.Multi) != 1 {
			t.Errorf("%s: lib/pq reads %d hosts more than the first, want 1", c.url, len(cfg.Multi))
		}
	}
	for _, bad := range []string{
		"postgres://h1:5432,/db",
		"postgres://h1:5432,h2:99999/db",
		"postgres://h1,::1/db",
		"postgres://h1,h2/db?port=5432",
	} {
		if _, err := postgresDSN(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// A password is masked in messages, in a URL of several hosts too.
func TestRedactMasksPasswords(t *testing.T) {
	for url, want := range map[string]string{
		"postgres://ann:secret@h1:5432,[::1]:5433/db": "postgres://ann:xxxxx@h1:5432,[::1]:5433/db",
		"postgres://ann@db/records":                   "postgres://ann@db/records",
		"postgres://ann:secret@db/records?x=1":        "postgres://ann:xxxxx@db/records?x=1",
	} {
		if got := redact(url); got != want {
			t.Errorf("redact(%s) = %s, want %s", url, got, want)
		}
	}
}

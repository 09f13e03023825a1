package migrate_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
)

// A database written before migration 0006 (one event trigger per row on
// PostgreSQL) keeps its events, and records every change after it with the
// triggers that replaced them (one per statement): multi-row statements
// included, in order, each row's image its own.
func TestEventsSurviveTheStatementTriggers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		m := migratedUpTo(t, dialect, 6)
		exec := m.exec
		exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP)`)
		exec(`INSERT INTO customers (id, team_id, version, email) VALUES ('before', 1, 1, 'b@example.com')`)
		m.finish()
		exec(`INSERT INTO customers (id, team_id, version, email) VALUES ('a', 1, 1, 'a@example.com'), ('b', 1, 1, 'b@example.com')`)
		exec(`UPDATE customers SET version = version + 1, email = 'x-' || id WHERE id IN ('a', 'b', 'before')`)
		exec(`UPDATE customers SET email = 'none' WHERE id = 'nope'`)
		exec(`DELETE FROM customers WHERE id IN ('a', 'before')`)

		got := eventLines(t, m.database.SQL)
		// The order of one statement's rows is the database's; compare
		// each statement's events as a set.
		want := [][]string{
			{"customers.created before b@example.com"},
			{"customers.created a a@example.com", "customers.created b b@example.com"},
			{"customers.updated a x-a", "customers.updated b x-b", "customers.updated before x-before"},
			// A row erased is purged: since the trash (0015), a record
			// deleted through the API is an update that sets deleted_at.
			{"customers.purged a", "customers.purged before"},
		}
		compareByStatement(t, got, want)
	})
}

// eventLines reads the event log in its order, a line an event: its type,
// its record's id and, when it has an image, the email the image holds.
func eventLines(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT type, record_id, image FROM events ORDER BY txid, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var typ, id string
		var image *string
		if err := rows.Scan(&typ, &id, &image); err != nil {
			t.Fatal(err)
		}
		line := typ + " " + id
		if image != nil {
			var row struct {
				ID    string `json:"id"`
				Email string `json:"email"`
			}
			if err := json.Unmarshal([]byte(*image), &row); err != nil || row.ID != id {
				t.Fatalf("%s: image %s (%v)", line, *image, err)
			}
			line += " " + row.Email
		}
		got = append(got, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// compareByStatement compares events with want, a list of events a
// statement: the order of one statement's rows is the database's, so each
// statement's events are compared as a set.
func compareByStatement(t *testing.T, got []string, want [][]string) {
	t.Helper()
	for _, stmt := range want {
		if len(got) < len(stmt) {
			t.Fatalf("events %q, want %q", got, want)
		}
		head := slices.Clone(got[:len(stmt)])
		slices.Sort(head)
		if !slices.Equal(head, stmt) {
			t.Fatalf("events %q, want %q", got, want)
		}
		got = got[len(stmt):]
	}
	if len(got) > 0 {
		t.Fatalf("events no statement made: %q", got)
	}
}

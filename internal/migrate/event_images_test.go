package migrate_test

import (
	"slices"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
)

// Migration 0023 gives each PostgreSQL table whose event images leave
// columns out (search columns, sensitive ones) a trigger function of its
// own, whose image is row_to_json of the kept columns: an event written
// after it holds the same keys, in the same order, with the same values
// as one written before it by records_event's json_object_agg. SQLite's
// event triggers are not changed by it.
func TestEventImagesKeepTheirMembersThroughTheirOwnFunctions(t *testing.T) {
	dbtest.RequirePostgres(t)
	m := migratedUpTo(t, migrate.Postgres, 23)
	exec := m.exec
	exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP)`)
	write := func() {
		exec(`INSERT INTO returns (id, team_id, description, issue, rma, amount) VALUES ('r-1', 1, 'Crème "brûlée" \ x', E'tab\there', 'RMA 7', '12.50')`)
		exec(`UPDATE returns SET deleted_at = 5 WHERE id = 'r-1'`)
		exec(`DELETE FROM returns WHERE id = 'r-1'`)
		exec(`INSERT INTO users (id, team_id, username, bio) VALUES ('u-1', 1, 'ann', 'likes sprockets')`)
		exec(`DELETE FROM users WHERE id = 'u-1'`)
		exec(`INSERT INTO suppliers (id, team_id, token_hash) VALUES ('s-1', 1, 'secret')`)
		exec(`DELETE FROM suppliers WHERE id = 's-1'`)
	}
	write()
	m.finish()
	write()
	// Each image's members in order, as text, by the event's type and
	// record, before and after the migration.
	rows, err := m.database.SQL.Query(`SELECT e.type || ' ' || e.record_id,
  (SELECT string_agg(j.key || '=' || j.value::text, ', ' ORDER BY j.ordinality) FROM json_each(e.image::json) WITH ORDINALITY j)
FROM events e WHERE e.image IS NOT NULL ORDER BY e.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	images := map[string][]string{}
	for rows.Next() {
		var key, members string
		if err := rows.Scan(&key, &members); err != nil {
			t.Fatal(err)
		}
		images[key] = append(images[key], members)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(images) != 4 {
		t.Fatalf("images of %d events, want 4: %v", len(images), images)
	}
	for key, got := range images {
		if len(got) != 2 || got[0] != got[1] {
			t.Errorf("%s: the images before and after the migration differ:\n%s", key, slices.Concat(got))
		}
	}
}

package migrate_test

import (
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
)

// searchTexts are the members' texts whose words are compared: accents
// folded (composed, and a combining mark), letters that stay (ø, ß, æ,
// ł), null, empty, English stems and stop words, a long text.
var searchTexts = []string{
	"Crème brûlée à la façon de Ångström; naïve café résumé",
	"Zoë.Ørsted@exämple.com ŁÓDŹ-ß-æ e\u0301cole",
	"",
	"The customer reports that the widget stopped working; running runs ran",
	strings.Repeat("widget cracked housing Ünïcödé ", 40),
}

// searchedMembers are the searchable members of the tables with search
// columns on PostgreSQL (schema/), every one filled by the test.
var searchedMembers = map[string][]string{
	"returns":   {"description", "issue", "customer_email", "rma", "serial_number"},
	"users":     {"bio", "email", "title", "username"},
	"cases":     {"case_name", "description"},
	"customers": {"email", "first_name", "last_name"},
}

// Migration 0023 remakes PostgreSQL's search columns with
// records_search_vector, a PL/pgSQL function, in place of one expression
// per member calling a SQL records_fold: the words it stores are those
// the columns held before, byte for byte (tsvectorsend), for the rows it
// remade and for rows written after it. (SQLite's part of 0023, one FTS5
// table a resource, is proven by the server's search tests.)
func TestSearchColumnsKeepTheirWordsThroughTheUpkeepMigration(t *testing.T) {
	dbtest.RequirePostgres(t)
	m := migratedUpTo(t, migrate.Postgres, 23)
	exec := m.exec
	exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP), (2, 'two', CURRENT_TIMESTAMP)`)
	// insert writes the rows of a team (users' names are unique in one).
	insert := func(prefix, team string) {
		t.Helper()
		for table, members := range searchedMembers {
			for i := range searchTexts {
				// Member j of row i holds text i+j, so that each text meets
				// each member; row "nulls" has every member null.
				args := []any{prefix + string(rune('a'+i))}
				for j := range members {
					args = append(args, searchTexts[(i+j)%len(searchTexts)])
				}
				exec(`INSERT INTO `+table+` (id, team_id, `+strings.Join(members, ", ")+`) VALUES ($1, `+team+placeholders(len(members))+`)`, args...)
			}
			exec(`INSERT INTO ` + table + ` (id, team_id) VALUES ('` + prefix + `nulls', ` + team + `)`)
		}
	}
	insert("", "1")
	before := searchWords(t, m.database.SQL)
	if len(before) == 0 {
		t.Fatal("no search column before 0023")
	}
	m.finish()
	insert("new-", "2")
	after := searchWords(t, m.database.SQL)
	for key, want := range before {
		if got := after[key]; got != want {
			t.Errorf("%s: the migration made the words\n%s\nwhere they were\n%s", key, got, want)
		}
		if got := after["new-"+key]; got != want {
			t.Errorf("new-%s: written after the migration, the words are\n%s\nwhere they were\n%s", key, got, want)
		}
	}
	if len(after) != 2*len(before) {
		t.Errorf("%d search values after the migration, want %d", len(after), 2*len(before))
	}
}

// placeholders are ", $2" to ", $(n+1)".
func placeholders(n int) string {
	var b strings.Builder
	for i := 2; i <= n+1; i++ {
		b.WriteString(", $" + strconv.Itoa(i))
	}
	return b.String()
}

// searchWords are the stored bytes of every search column of every row
// of searchedMembers' tables, by "id table.column".
func searchWords(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for table := range searchedMembers {
		rows, err := db.Query(`SELECT a.attname FROM pg_attribute a WHERE a.attrelid = $1::regclass
AND a.attname LIKE 'records\_search%' AND NOT a.attisdropped`, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		rows.Close()
		for _, c := range cols {
			rows, err := db.Query(`SELECT id, encode(tsvectorsend(` + c + `), 'hex') || ' ' || ` + c + `::text FROM ` + table)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, words string
				if err := rows.Scan(&id, &words); err != nil {
					t.Fatal(err)
				}
				out[id+" "+table+"."+c] = words
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
	return out
}

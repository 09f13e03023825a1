package migrate_test

import (
	"database/sql"
	"maps"
	"slices"
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

// membersApart is the migration that puts a gap between the words of two
// members in PostgreSQL's search columns, on purpose: the tests of what
// migrations before it keep stop before it.
const membersApart = 28

// Migration 0023 remakes PostgreSQL's search columns with
// records_search_vector, a PL/pgSQL function, in place of one expression
// per member calling a SQL records_fold: the words it stores are those
// the columns held before, byte for byte (tsvectorsend), for the rows it
// remade and for rows written after it. (SQLite's part of 0023, one FTS5
// table a resource, is proven by the server's search tests.)
func TestSearchColumnsKeepTheirWordsThroughTheUpkeepMigration(t *testing.T) {
	dbtest.RequirePostgres(t)
	m := migratedUpTo(t, migrate.Postgres, 23)
	m.exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP), (2, 'two', CURRENT_TIMESTAMP)`)
	writeSearched(m, "", "1", 0)
	before := searchWords(t, m.database.SQL)
	if len(before) == 0 {
		t.Fatal("no search column before 0023")
	}
	m.finishBefore(membersApart)
	writeSearched(m, "new-", "2", 0)
	sameWords(t, before, searchWords(t, m.database.SQL), "new-", 2)
}

// Migration 0025 turns the generated search columns into plain ones that
// a trigger of each table keeps, parsing each member once: the columns
// keep their words, the tables and their GIN indexes are not written
// again (the same files), and the words of a row inserted after it, or
// updated in its members, are those a generated column made of the same
// members, byte for byte (tsvectorsend).
func TestSearchColumnsKeepTheirWordsThroughTheTrigger(t *testing.T) {
	dbtest.RequirePostgres(t)
	m := migratedUpTo(t, migrate.Postgres, 25)
	m.exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP), (2, 'two', CURRENT_TIMESTAMP),
  (3, 'three', CURRENT_TIMESTAMP)`)
	writeSearched(m, "", "1", 0)
	before := searchWords(t, m.database.SQL)
	if len(before) == 0 {
		t.Fatal("no search column before 0025")
	}
	files := searchFiles(t, m.database.SQL)
	m.finishBefore(membersApart)
	if got := searchFiles(t, m.database.SQL); got != files {
		t.Errorf("the migration wrote the tables or their search indexes again: files\n%s\nwhere they were\n%s", got, files)
	}
	// Rows inserted, then rows updated: each written with texts shifted
	// by one first, then updated in its members to texts as "" rows have.
	writeSearched(m, "new-", "2", 0)
	writeSearched(m, "upd-", "3", 1) // users' names are unique in a team
	for table, members := range searchedMembers {
		set := make([]string, len(members))
		for j, c := range members {
			set[j] = c + " = o." + c
		}
		// Each member apart first: users' names are unique in a team,
		// checked row by row.
		m.exec(`UPDATE ` + table + ` SET ` + members[len(members)-1] + ` = id WHERE id LIKE 'upd-%'`)
		m.exec(`UPDATE ` + table + ` u SET ` + strings.Join(set, ", ") + ` FROM ` + table + ` o WHERE o.id = substr(u.id, 5) AND u.id LIKE 'upd-%'`)
	}
	after := searchWords(t, m.database.SQL)
	sameWords(t, before, after, "new-", 3)
	sameWords(t, before, after, "upd-", 3)
}

// Migration 0028 fills PostgreSQL's search columns again, a gap between
// one member's words and the next's, by rewriting each table (a column
// generated of records_search_vector, its expression dropped), never by
// an UPDATE: it writes no event and changes no member of a record (its
// version, its stamps), and each row's words are those the trigger gives
// a row written after it with the same members, byte for byte. A phrase
// across the end of one member and the start of the next, found before
// it, is found no more.
func TestSearchColumnsKeepMembersApartThroughTheirRefill(t *testing.T) {
	dbtest.RequirePostgres(t)
	m := migratedUpTo(t, migrate.Postgres, membersApart)
	m.exec(`INSERT INTO teams (id, name, created_at) VALUES (1, 'one', CURRENT_TIMESTAMP), (2, 'two', CURRENT_TIMESTAMP)`)
	writeSearched(m, "", "1", 0)
	m.exec(`INSERT INTO cases (id, team_id, case_name, description) VALUES ('span', 1, 'Broken zanzibar', 'Widget arrived late')`)
	across := `SELECT count(*) FROM cases WHERE records_search @@ websearch_to_tsquery('english', '"zanzibar widget"')`
	if n := count(t, m.database.SQL, across); n != 1 {
		t.Fatalf("before the migration, a phrase across two members finds %d cases, want 1", n)
	}
	events, records, before := count(t, m.database.SQL, `SELECT count(*) FROM events`), searchedRecords(t, m.database.SQL), searchWords(t, m.database.SQL)
	m.finish()
	if n := count(t, m.database.SQL, `SELECT count(*) FROM events`); n != events {
		t.Errorf("the migration wrote %d events", n-events)
	}
	if got := searchedRecords(t, m.database.SQL); !maps.Equal(got, records) {
		t.Errorf("the migration changed records:\n%v\nwhere they were\n%v", got, records)
	}
	if n := count(t, m.database.SQL, across); n != 0 {
		t.Errorf("after the migration, a phrase across two members finds %d cases, want none", n)
	}
	writeSearched(m, "new-", "2", 0)
	after, changed := searchWords(t, m.database.SQL), 0
	for key, was := range before {
		if strings.HasPrefix(key, "span ") {
			continue // not written again
		}
		if after[key] != after["new-"+key] {
			t.Errorf("%s: the migration made the words\n%s\nwhere the trigger makes\n%s", key, after[key], after["new-"+key])
		}
		if after[key] != was {
			changed++
		}
	}
	if changed == 0 {
		t.Error("the migration changed no search column")
	}
}

// count is the number a query answers.
func count(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// searchedRecords are the rows of searchedMembers' tables but their
// search columns, as JSON, by "id table".
func searchedRecords(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for table := range searchedMembers {
		readTexts(t, db, `SELECT id, (to_jsonb(r) - 'records_search' - 'records_search_a' - 'records_search_b')::text FROM `+table+` r`, " "+table, out)
	}
	return out
}

// readTexts adds to out the rows q answers, each an id and a text, the
// text by the id and then suffix.
func readTexts(t *testing.T, db *sql.DB, q, suffix string, out map[string]string) {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		out[id+suffix] = text
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// writeSearched writes rows of every table of searchedMembers for team,
// their ids beginning with prefix: row i's member j holds text i+j+shift,
// so that each text meets each member; row "nulls" has every member null.
func writeSearched(m stoppedBefore, prefix, team string, shift int) {
	m.t.Helper()
	for table, members := range searchedMembers {
		for i := range searchTexts {
			args := []any{prefix + string(rune('a'+i))}
			for j := range members {
				args = append(args, searchTexts[(i+j+shift)%len(searchTexts)])
			}
			m.exec(`INSERT INTO `+table+` (id, team_id, `+strings.Join(members, ", ")+`) VALUES ($1, `+team+placeholders(len(members))+`)`, args...)
		}
		m.exec(`INSERT INTO ` + table + ` (id, team_id) VALUES ('` + prefix + `nulls', ` + team + `)`)
	}
}

// sameWords fails t unless after holds before's words, and those again
// for the rows whose ids begin with prefix; of all rows, after has sets
// times as many words as before.
func sameWords(t *testing.T, before, after map[string]string, prefix string, sets int) {
	t.Helper()
	for key, want := range before {
		if got := after[key]; got != want {
			t.Errorf("%s: the migration made the words\n%s\nwhere they were\n%s", key, got, want)
		}
		if got := after[prefix+key]; got != want {
			t.Errorf("%s%s: written after the migration, the words are\n%s\nwhere they were\n%s", prefix, key, got, want)
		}
	}
	if len(after) != sets*len(before) {
		t.Errorf("%d search values after the migration, want %d", len(after), sets*len(before))
	}
}

// searchFiles are the files of the tables of searchedMembers and of their
// search indexes, one a line.
func searchFiles(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out string
	err := db.QueryRow(`SELECT string_agg(c.relname || ' ' || pg_relation_filenode(c.oid), E'\n' ORDER BY c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND (c.relname = ANY($1) OR c.relname LIKE '%\_records\_search%')`, "{"+strings.Join(slices.Sorted(maps.Keys(searchedMembers)), ",")+"}").Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
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
			readTexts(t, db, `SELECT id, encode(tsvectorsend(`+c+`), 'hex') || ' ' || `+c+`::text FROM `+table, " "+table+"."+c, out)
		}
	}
	return out
}

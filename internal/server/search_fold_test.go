package server_test

import (
	"context"
	"testing"

	"records/internal/fold"
	"records/internal/migrate"
)

// A search's words are folded by the service (fold.String) before
// PostgreSQL reads them, the stored words by the database's
// records_search_vector (and records_fold, by the same table): they must
// agree on every letter of the table, on the combining marks and on text
// with none, or an accented word would stop finding itself.
func TestSearchWordsFoldAsTheDatabaseFolds(t *testing.T) {
	h := newHarness(t, migrate.Postgres, testConfig())
	from, _ := fold.Table()
	texts := []string{"widget", "Crème brûlée", "e\u0301te\u0301 ÅNGSTRÖM", "ø ß æ ł 東京 🙂", from}
	for _, r := range from {
		texts = append(texts, "a"+string(r)+"b")
	}
	for _, text := range texts {
		var got string
		if err := h.db.SQL.QueryRowContext(context.Background(), `SELECT records_fold($1)`, text).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := fold.String(text); got != want {
			t.Errorf("records_fold(%q) = %q, fold.String = %q", text, got, want)
		}
		var same bool
		err := h.db.SQL.QueryRowContext(context.Background(),
			`SELECT records_search_vector('A', $1) = setweight(to_tsvector('english'::regconfig, $2), 'A')`, text, fold.String(text)).Scan(&same)
		if err != nil {
			t.Fatal(err)
		}
		if !same {
			t.Errorf("records_search_vector('A', %q) holds other words than the text folded by fold.String, %q", text, fold.String(text))
		}
	}
}

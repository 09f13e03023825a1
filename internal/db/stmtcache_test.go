package db

import "testing"

func TestDollarPlaceholders(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT "id" FROM "t" WHERE "a" = ? AND "b" = ?`: `SELECT "id" FROM "t" WHERE "a" = $1 AND "b" = $2`,
		`SELECT '?' , "q?" , ? `:                         `SELECT '?' , "q?" , $1 `,
		`SELECT 1`:                                       `SELECT 1`,
	} {
		if got := dollarPlaceholders(in); got != want {
			t.Errorf("dollarPlaceholders(%q) = %q, want %q", in, got, want)
		}
	}
}

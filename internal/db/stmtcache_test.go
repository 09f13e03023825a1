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

func TestUnboundLimits(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT "id" FROM "t" WHERE "a" = ? ORDER BY "id" LIMIT ?`: `SELECT "id" FROM "t" WHERE "a" = ? ORDER BY "id" LIMIT +?`,
		`SELECT "id" FROM "t" ORDER BY "id" LIMIT ? OFFSET ?`:      `SELECT "id" FROM "t" ORDER BY "id" LIMIT +? OFFSET ?`,
		`SELECT * FROM (SELECT "id" FROM "t" LIMIT ?) LIMIT ?`:     `SELECT * FROM (SELECT "id" FROM "t" LIMIT +?) LIMIT +?`,
		`SELECT 'LIMIT ?', "LIMIT ?" FROM "t" LIMIT 5`:             `SELECT 'LIMIT ?', "LIMIT ?" FROM "t" LIMIT 5`,
		`SELECT 1`: `SELECT 1`,
	} {
		if got := unboundLimits(in); got != want {
			t.Errorf("unboundLimits(%q) = %q, want %q", in, got, want)
		}
	}
}

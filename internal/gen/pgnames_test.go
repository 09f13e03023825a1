package gen

import (
	"context"
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
)

func TestLongTableNamesMakeFunctionNamesPostgresKeeps(t *testing.T) {
	short := pgTableName(pgUpkeepPrefix, "returns")
	if short != "records_search_of_returns" {
		t.Errorf("a short name changed: %s", short)
	}
	long := strings.Repeat("warranty_line_item_", 4)
	a, b := pgTableName(pgUpkeepPrefix, long+"a"), pgTableName(pgUpkeepPrefix, long+"b")
	accented := pgTableName("records_event_", strings.Repeat("é", 40))
	for _, n := range []string{a, b, accented} {
		if len(n) > pgMaxName || !strings.HasPrefix(n, "records_") {
			t.Errorf("%s: %d bytes", n, len(n))
		}
	}
	if a == b || a != pgTableName(pgUpkeepPrefix, long+"a") {
		t.Errorf("two long names: %s and %s", a, b)
	}
	dbtest.RequirePostgres(t)
	db := dbtest.OpenEmpty(t, migrate.Postgres)
	for _, n := range []string{a, accented} {
		var kept string
		if err := db.SQL.QueryRowContext(context.Background(), `SELECT $1::name::text`, n).Scan(&kept); err != nil || kept != n {
			t.Errorf("PostgreSQL keeps %q as %q (%v)", n, kept, err)
		}
	}
}

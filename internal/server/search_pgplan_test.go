package server_test

import (
	"slices"
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/migrate"
)

// On PostgreSQL a search whose every tier the sample tells common or rare
// runs prepared statements (query.Search.PGSampleSQL): the common tier's
// walk (ts_match_vq), the rare tiers sorted from their GIN indexes; and
// it answers what the tiers' order says, on both databases.
func TestSearchTiersPreparedOncePerWordClass(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, d, testConfig())
			seedCommon(h)
			r := h.call("GET", "/v1/returns?q=widget&limit=3", "").want(200)
			if got, want := idsInOrder(r, "returns"), []string{"t-7", "f-19", "f-18"}; !slices.Equal(got, want) {
				t.Errorf("q=widget: %v, want %v", got, want)
			}
			if d != migrate.Postgres {
				return
			}
			var walk, sorted bool
			for _, text := range h.db.Prepared() {
				walk = walk || strings.Contains(text, "ts_match_vq(") && strings.Contains(text, `AS "walk"`)
				sorted = sorted || strings.Contains(text, `ORDER BY "id" || '' DESC`)
			}
			if !walk || !sorted {
				t.Errorf("prepared a walk: %v, a sorted tier: %v, among %q", walk, sorted, h.db.Prepared())
			}
		})
	}
}

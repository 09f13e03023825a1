package server_test

import (
	"context"
	"slices"
	"testing"

	"records/internal/migrate"
)

// The search index follows every write of a searchable member: an edit
// moves a record between relevance tiers (on SQLite, between the ranges
// of rowids of the one FTS5 table that holds each weight class's
// documents), a purge takes it out, a trashed record is not found, and
// SQLite's FTS5 index stays whole.
func TestSearchIndexFollowsEdits(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/returns", `{"id":"u-1","rma":"zephyr"}`).want(201)
		h.call("POST", "/v1/returns", `{"id":"u-2","issue":"zephyr"}`).want(201)
		h.call("POST", "/v1/returns", `{"id":"u-3","description":"zephyr"}`).want(201)
		h.call("POST", "/v1/returns", `{"id":"u-4","description":"zephyr"}`).want(201)
		search := func(q string, want ...string) {
			t.Helper()
			got := idsInOrder(h.call("GET", "/v1/returns?limit=100&q="+q, "").want(200), "returns")
			if !slices.Equal(got, want) {
				t.Fatalf("q=%s: %v, want %v", q, got, want)
			}
		}
		search("zephyr", "u-1", "u-2", "u-4", "u-3")
		h.call("PATCH", "/v1/returns/u-1", `{"rma":"plain","description":"zephyr"}`).want(200)
		h.call("PATCH", "/v1/returns/u-3", `{"description":"plain","rma":"zephyr"}`).want(200)
		search("zephyr", "u-3", "u-2", "u-4", "u-1")
		search("plain", "u-1", "u-3")
		h.call("DELETE", "/v1/returns/u-2?permanent=true", "").want(200)
		h.call("DELETE", "/v1/returns/u-4", "").want(200)
		search("zephyr", "u-3", "u-1")
		if h.db.Dialect == migrate.SQLite {
			if _, err := h.db.SQL.ExecContext(context.Background(), `INSERT INTO returns_search(returns_search) VALUES ('integrity-check')`); err != nil {
				t.Fatalf("the FTS5 index: %v", err)
			}
		}
	})
}

package server_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"records/internal/migrate"
)

// A search finds what was written just before it, whatever the write: on
// SQLite a new record is indexed after its commit, in a batch, and a
// search first indexes the queue of its table (DESIGN §16). Creates then
// searches at once — a list, its count, an export, an aggregate —, edits
// and deletes of records just made, the trash, a restore, a purge and a
// bulk create; after each, SQLite's FTS5 index is whole.
func TestSearchFindsWhatWasJustWritten(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		search := func(q string, want ...string) {
			t.Helper()
			got := sorted(idsInOrder(h.call("GET", "/v1/returns?limit=100&count=exact&q="+q, "").want(200), "returns"))
			if !slices.Equal(got, sorted(want)) {
				t.Fatalf("q=%s: %v, want %v", q, got, want)
			}
			whole(t, h)
		}
		h.call("POST", "/v1/returns", `{"id":"n-1","description":"quokka"}`).want(201)
		search("quokka", "n-1")
		h.call("POST", "/v1/returns", `{"id":"n-2","issue":"quokka"}`).want(201)
		r := h.call("GET", "/v1/returns/aggregate?metrics=count&q=quokka", "").want(200)
		if n := fmt.Sprint(r.at("groups", 0, "count")); n != "2" {
			t.Fatalf("the aggregate of quokka counts %v, want 2", n)
		}
		h.call("POST", "/v1/returns", `{"id":"n-3","rma":"quokka"}`).want(201)
		h.unchecked = true // the contract check reads no NDJSON
		if body := string(h.call("GET", "/v1/returns?q=quokka", "", "Accept", "application/x-ndjson").want(200).Body); strings.Count(body, `"id":"n-`) != 3 {
			t.Fatalf("the export of quokka: %s, want n-1 to n-3", body)
		}
		h.unchecked = false
		// Edited, deleted just after their create.
		h.call("POST", "/v1/returns", `{"id":"n-4","description":"quokka"}`).want(201)
		h.call("PATCH", "/v1/returns/n-4", `{"description":"wombat"}`).want(200)
		h.call("POST", "/v1/returns", `{"id":"n-5","description":"quokka"}`).want(201)
		h.call("DELETE", "/v1/returns/n-5?permanent=true", "").want(200)
		search("quokka", "n-1", "n-2", "n-3")
		search("wombat", "n-4")
		// An edit of an indexed record.
		h.call("PATCH", "/v1/returns/n-4", `{"description":"quokka"}`).want(200)
		search("wombat")
		search("quokka", "n-1", "n-2", "n-3", "n-4")
		// The trash, a restore, a purge.
		h.call("POST", "/v1/returns", `{"id":"n-6","description":"numbat"}`).want(201)
		h.call("DELETE", "/v1/returns/n-6", "").want(200)
		search("numbat")
		h.call("POST", "/v1/returns/n-6/restore", "").want(200)
		search("numbat", "n-6")
		h.call("DELETE", "/v1/returns/n-6?permanent=true", "").want(200)
		search("numbat")
		// A bulk create.
		var bulk []string
		for i := range 300 {
			bulk = append(bulk, `{"id":"b-`+strconv.Itoa(i)+`","description":"bilby `+strconv.Itoa(i)+`"}`)
		}
		h.call("POST", "/v1/returns", "["+strings.Join(bulk, ",")+"]").want(201)
		r = h.call("GET", "/v1/returns?limit=1&count=exact&q=bilby", "").want(200)
		if n := fmt.Sprint(r.at("paging", "total")); n != "300" {
			t.Fatalf("bilby counts %v after a bulk create of 300, want 300", n)
		}
		whole(t, h)
	})
}

// whole checks, on SQLite, that the FTS5 index of returns is whole.
func whole(t *testing.T, h *harness) {
	t.Helper()
	if h.db.Dialect != migrate.SQLite {
		return
	}
	if _, err := h.db.SQL.ExecContext(context.Background(), `INSERT INTO returns_search(returns_search) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("the FTS5 index: %v", err)
	}
}

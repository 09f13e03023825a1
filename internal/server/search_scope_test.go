package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
)

// A search narrows an export as it narrows a page: CSV and NDJSON answer
// the records q matches, every one of them, and nothing else.
func TestSearchNarrowsExports(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		seedSearch(h)
		path := "/v1/returns?q=" + url.QueryEscape("refund -damaged")
		csv := h.call("GET", path, "", "Accept", "text/csv").want(200)
		lines := strings.Split(strings.TrimSpace(string(csv.Body)), "\n")
		var got []string
		for _, l := range lines[1:] { // the header first
			got = append(got, strings.SplitN(l, ",", 2)[0])
		}
		if !slices.Equal(sorted(got), []string{"r-1", "r-3"}) || !strings.HasPrefix(lines[0], "id,") {
			t.Fatalf("CSV of q: %q", csv.Body)
		}
		h.unchecked = true // the document's checker reads no NDJSON
		nd := h.call("GET", path, "", "Accept", "application/x-ndjson").want(200)
		h.unchecked = false
		got = nil
		for _, l := range strings.Split(strings.TrimSpace(string(nd.Body)), "\n") {
			var rec struct{ ID string }
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("NDJSON line %q: %v", l, err)
			}
			got = append(got, rec.ID)
		}
		if !slices.Equal(sorted(got), []string{"r-1", "r-3"}) {
			t.Fatalf("NDJSON of q: %q", nd.Body)
		}
		h.call("GET", "/v1/returns?q=the", "", "Accept", "text/csv").problem(400, "invalid_request", "q")
	})
}

// searchPolicies give a role the open returns alone.
const searchPolicies = `roles:
  opener:
    returns:
      read: {filter: {status: open}}
`

// A role's filter holds under q and in totals: a search finds, counts and
// totals only what the role may read, and another team's records never.
func TestSearchAndTotalsKeepToTheRole(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newRolesHarness(t, d, searchPolicies)
			searchKeepsToTheRole(t, h)
			tiersKeepToTheRole(t, h)
		})
	}
}

func searchKeepsToTheRole(t *testing.T, h *harness) {
	seedSearch(h)
	other := h.newToken("other", auth.Write, "other-team")
	h.callAs(other, "POST", "/v1/returns", `{"id":"o-1","description":"refund for another team","status":"open"}`).want(201)
	opener := h.roleToken("opener", "ana", auth.Read)

	r := h.uncheckedAs(opener, "GET", "/v1/returns?q=refund&count=exact", "").want(200)
	if got := sorted(idsInOrder(r, "returns")); !slices.Equal(got, []string{"r-1", "r-2"}) {
		t.Fatalf("the role's search: %v", got)
	}
	if fmt.Sprint(r.at("paging", "total")) != "2" {
		t.Fatalf("the role's count: %v", r.at("paging", "total"))
	}
	csv := h.uncheckedAs(opener, "GET", "/v1/returns?q=refund", "", "Accept", "text/csv").want(200)
	if n := strings.Count(strings.TrimSpace(string(csv.Body)), "\n"); n != 2 {
		t.Fatalf("the role's export holds %d records: %q", n, csv.Body)
	}

	agg := h.uncheckedAs(opener, "GET", "/v1/returns/aggregate?group_by=status&q=refund", "").want(200)
	groups := agg.list("groups")
	if len(groups) != 1 {
		t.Fatalf("the role's totals: %s", agg.Body)
	}
	g := groups[0].(map[string]any)
	if g["key"].(map[string]any)["status"] != "open" || fmt.Sprint(g["count"]) != "2" {
		t.Fatalf("the role's totals: %s", agg.Body)
	}
	all := h.uncheckedAs(opener, "GET", "/v1/returns/aggregate", "").want(200)
	if n := fmt.Sprint(all.list("groups")[0].(map[string]any)["count"]); n != "3" {
		t.Fatalf("the role counts %v returns, want the 3 open ones of its team", n)
	}
	// The team's admin token sees the closed one too; the other team's
	// record is in neither.
	agg = h.call("GET", "/v1/returns/aggregate?q=refund", "").want(200)
	if n := fmt.Sprint(agg.list("groups")[0].(map[string]any)["count"]); n != "3" {
		t.Fatalf("the team counts %v returns matching refund, want 3: %s", n, agg.Body)
	}
}

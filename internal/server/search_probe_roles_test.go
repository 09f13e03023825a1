package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/query"
)

// A role's filter holds where a search looks its matches up record by
// record (on SQLite, query.Probe) as it holds where it reads them as a set:
// a role that reads open returns alone finds, walks and counts exactly the
// open ones an unrestricted caller finds with filter[status]=open, in the
// same order, though the closed returns holding the same common words lie
// between them in every tier the walk crosses.
func TestSearchProbesKeepToTheRole(t *testing.T) {
	queries := []string{
		"q=gadget", "q=gadget&order_by=_rank", "q=widget", "q=widget&order_by=_rank",
		"q=sprocket+teal", "q=" + url.QueryEscape("gadget -widget"), "q=" + url.QueryEscape("rusty or widget"),
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.SearchProbe = query.Probe{Sample: 1000, Floor: 1, Walk: 3}
			h := newPoliciesHarness(t, d, cfg, searchPolicies)
			seedCommon(h)
			for i := range 12 { // closed, among the open f-… of seedCommon
				h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"f-%02da","rma":"gadget teal sprocket","description":"widget","status":"closed"}`, i)).want(201)
			}
			opener := h.roleToken("opener", "ana", auth.Read)
			asOpener := func(path string) *response { return h.uncheckedAs(opener, "GET", path, "") }
			for _, q := range queries {
				want := h.call("GET", "/v1/returns?"+q+"&filter[status]=open&count=exact", "").want(200)
				got := asOpener("/v1/returns?" + q + "&count=exact").want(200)
				w, g := idsInOrder(want, "returns"), idsInOrder(got, "returns")
				if len(w) == 0 || !slices.Equal(w, g) {
					t.Errorf("%s: the role found %v, the filter %v", q, g, w)
				}
				if w, g := want.at("paging", "total"), got.at("paging", "total"); w != g {
					t.Errorf("%s: the role counted %v, the filter %v", q, g, w)
				}
				for _, limit := range []string{"2", "5"} {
					want := walkSearch(h, q+"&filter[status]=open&limit="+limit, func(int) {})
					if got := walkAs(asOpener, q+"&limit="+limit, func(int) {}); !slices.Equal(got, want) {
						t.Errorf("%s&limit=%s: the role walked %v, the filter %v", q, limit, got, want)
					}
				}
			}
		})
	}
}

package server_test

import (
	"net/url"
	"slices"
	"testing"
)

// A word no heavier member holds is read from the last tier alone on
// SQLite (query.Search.Unweighted): walked by cursor, at every page size,
// both directions, it answers what a page read by offset answers — a
// page the sample never steers, ordered by every tier's condition.
func TestSearchUnweightedAnswersWhatTheOffsetsAnswer(t *testing.T) {
	queries := []string{"q=widget", "q=widget&order_by=_rank", "q=" + url.QueryEscape("widget -teal"), "q=" + url.QueryEscape("widget or rusty")}
	each(t, func(t *testing.T, h *harness) {
		seedCommon(h)
		for _, q := range queries {
			all := idsInOrder(h.call("GET", "/v1/returns?"+q+"&limit=100&offset=1", "").want(200), "returns")
			for _, limit := range []string{"1", "2", "7"} {
				got := walkSearch(h, q+"&limit="+limit, func(int) {})
				if len(got) == 0 || !slices.Equal(got[1:], all) {
					t.Errorf("%s&limit=%s: walked %v, by offset (from the second) %v", q, limit, got, all)
				}
			}
		}
	})
}

// A word that a heavier member comes to hold is read in its tier at the
// next search: whether any does is read by every page, never kept.
func TestSearchUnweightedSeesAHeavierMatchMadeSince(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		seedCommon(h)
		before := idsInOrder(h.call("GET", "/v1/returns?q=widget&limit=3", "").want(200), "returns")
		h.call("POST", "/v1/returns", `{"id":"a-00","rma":"widget","status":"open"}`).want(201)
		after := idsInOrder(h.call("GET", "/v1/returns?q=widget&limit=3", "").want(200), "returns")
		if want := append([]string{"a-00"}, before[:2]...); !slices.Equal(after, want) {
			t.Errorf("after a-00 holds widget in its rma: %v, want %v", after, want)
		}
	})
}

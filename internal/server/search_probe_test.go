package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/dbtest"
	"records/internal/query"
)

// seedCommon is seedTiers and twenty returns more holding gadget, teal
// and sprocket in their rma (the heaviest class) and widget in their
// description: each of those words is in most records of every FTS5
// table it is in, so that on SQLite a search looks its matches up record
// by record (query.Probe) where the harness lets it.
func seedCommon(h *harness) {
	seedTiers(h)
	for i := range 20 {
		h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"f-%02d","rma":"gadget teal sprocket","description":"widget","status":"open"}`, i)).want(201)
	}
}

// probing is a harness whose searches look up record by record the
// matches of any word in half the records, walking 3 records a tier at
// most before reading the rest of the tier from the set.
func probing(t *testing.T, d string) *harness {
	cfg := testConfig()
	cfg.SearchProbe = query.Probe{Sample: 1000, Floor: 1, Walk: 3}
	return newHarness(t, d, cfg)
}

// A word in most records, looked up record by record on SQLite, answers
// what the sets answer, in the same order: every tier, both directions,
// by cursor at every page size, beside filters, exclusions, phrases and
// or; and the tiers' order of the words common in the heaviest class.
func TestSearchProbesAnswerWhatTheSetsAnswer(t *testing.T) {
	queries := []string{
		"q=gadget", "q=gadget&order_by=_rank", "q=widget", "q=widget&order_by=_rank",
		"q=sprocket+teal", "q=" + url.QueryEscape(`"sprocket teal"`), "q=" + url.QueryEscape("gadget -widget"),
		"q=" + url.QueryEscape("sprocket -rusty"), "q=" + url.QueryEscape("rusty or widget"),
		"q=gadget&filter[status]=closed", "q=widget&filter[status]=open&order_by=_rank",
		"q=gadget&limit=3&offset=2", "q=gadget&count=exact", "q=zanzibar",
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			sets, probes := newHarness(t, d, testConfig()), probing(t, d)
			seedCommon(sets)
			seedCommon(probes)
			for _, q := range queries {
				want := sets.call("GET", "/v1/returns?"+q, "").want(200)
				got := probes.call("GET", "/v1/returns?"+q, "").want(200)
				if w, g := idsInOrder(want, "returns"), idsInOrder(got, "returns"); !slices.Equal(w, g) {
					t.Errorf("%s: probes answered %v, sets %v", q, g, w)
				}
				if !strings.Contains(q, "count") {
					continue
				}
				if w, g := want.at("paging", "total"), got.at("paging", "total"); w != g {
					t.Errorf("%s: probes counted %v, sets %v", q, g, w)
				}
			}
			for _, q := range []string{"q=gadget", "q=gadget&order_by=_rank", "q=widget", "q=sprocket+teal&order_by=_rank"} {
				for _, limit := range []string{"1", "2", "5"} {
					want := walkSearch(sets, q+"&limit="+limit, func(int) {})
					if got := walkSearch(probes, q+"&limit="+limit, func(int) {}); !slices.Equal(got, want) {
						t.Errorf("%s&limit=%s: probes walked %v, sets %v", q, limit, got, want)
					}
				}
			}
			r := probes.call("GET", "/v1/returns?q=gadget&limit=6", "").want(200)
			if got, want := idsInOrder(r, "returns"), []string{"t-4", "t-1", "f-19", "f-18", "f-17", "f-16"}; !slices.Equal(got, want) {
				t.Errorf("q=gadget: %v, want %v", got, want)
			}
		})
	}
}

// A walk's window spans few rowids where records were made in the order of
// their ids, many where they were not: read as a range of rowids or looked
// up record by record (query.Spread), the tiers answer what the sets
// answer, page by page in both directions.
func TestSearchWindowsAnswerWhatTheSetsAnswer(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			sets, probes := newHarness(t, d, testConfig()), probing(t, d)
			for _, h := range []*harness{sets, probes} {
				seedCommon(h)
				for i := range 30 { // ids 13 apart made one after the other
					h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"s-%02d","description":"widget","rma":"gadget"}`, i*7%30)).want(201)
				}
			}
			for _, q := range []string{"q=widget", "q=gadget", "q=widget&order_by=_rank", "q=" + url.QueryEscape("widget -gadget")} {
				for _, limit := range []string{"1", "2", "7"} {
					want := walkSearch(sets, q+"&limit="+limit, func(int) {})
					if got := walkSearch(probes, q+"&limit="+limit, func(int) {}); !slices.Equal(got, want) {
						t.Errorf("%s&limit=%s: probes walked %v, sets %v", q, limit, got, want)
					}
				}
			}
		})
	}
}

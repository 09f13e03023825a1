package query

import (
	"slices"
	"strings"
	"testing"
)

// A class whose matches are common is looked up record by record in the
// tiers that read it, the others keep their sets; a tier with a Probe
// form reads the first records of the walk by it and the rest by its
// sets, from the position, in the page's direction.
func TestRankProbesCommonTables(t *testing.T) {
	m, err := ParseQ("widget")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	r := s.Rank(SQLite, m, map[string]bool{"": true})
	if r.Walk == nil || r.Walk.Table != "returns" {
		t.Fatalf("walk: %+v", r.Walk)
	}
	plain := s.Rank(SQLite, m, nil)
	for i, tier := range r.Tiers {
		if tier.Cond != plain.Tiers[i].Cond {
			t.Errorf("tier %d's sets changed: %s", i+1, tier.Cond)
		}
	}
	if r.Tiers[0].Probe != nil || r.Tiers[1].Probe != nil {
		t.Errorf("tiers 1 and 2 read no common class: %+v %+v", r.Tiers[0].Probe, r.Tiers[1].Probe)
	}
	probe := r.Tiers[2].Probe
	want := `EXISTS (SELECT 1 FROM "returns_search" WHERE "returns_search"."rowid" = "returns"."rowid" AND "returns_search" MATCH ?)` +
		` AND "returns"."rowid" NOT IN (SELECT "rowid" - 2199023255552 FROM "returns_search" WHERE "returns_search" MATCH ?` +
		` AND "rowid" >= 2199023255552 AND "rowid" < 3298534883328)`
	if probe == nil || probe.Cond != want || len(probe.Args) != 2 {
		t.Fatalf("tier 3's probe: %+v, want %s", probe, want)
	}
	b := s.Rank(SQLite, m, map[string]bool{"B": true}).Tiers[2].Probe
	if b == nil || !strings.Contains(b.Cond, `NOT EXISTS (SELECT 1 FROM "returns_search" WHERE "returns_search"."rowid" = "returns"."rowid" + 2199023255552 AND`) {
		t.Errorf("an exclusion's probe: %+v", b)
	}

	r.Walk.Team, r.Walk.Size = 7, 500
	keys := []Key{{Col: RankColumn, Desc: true}, {Col: IDColumn, Desc: true}}
	p := &Page{Keys: keys, Limit: 100, Rank: r, After: &Position{Values: []any{int64(3)}, ID: "ret-9"}}
	phases := p.Phases()
	if len(phases) != 2 || phases[0].Tier != 3 || phases[1].Tier != 3 {
		t.Fatalf("phases from tier 3: %+v", phases)
	}
	bound := `(SELECT min("id") FROM (SELECT "id" FROM "returns" WHERE "team_id" = ? AND "deleted_at" IS NULL AND "id" < ? ORDER BY "id" DESC LIMIT ?) AS "walk")`
	if want := want + ` AND "id" < ? AND "id" >= ` + bound; phases[0].Cond != want {
		t.Errorf("the walk's phase: %s, want %s", phases[0].Cond, want)
	}
	if want := plain.Tiers[2].Cond + ` AND "id" < ? AND "id" < ` + bound; phases[1].Cond != want {
		t.Errorf("the sets' phase: %s, want %s", phases[1].Cond, want)
	}
	args := []any{m.FTS, m.FTS, "ret-9", 7, "ret-9", 500}
	for _, ph := range phases {
		if !slices.Equal(ph.Args, args) {
			t.Errorf("args %v, want %v", ph.Args, args)
		}
	}
	p = &Page{Keys: []Key{{Col: RankColumn}, {Col: IDColumn}}, Limit: 100, Rank: r}
	phases = p.Phases()
	if len(phases) != 4 || phases[0].Tier != 3 || !strings.Contains(phases[0].Cond, `"id" <= (SELECT max("id")`) ||
		!strings.Contains(phases[1].Cond, `"id" > (SELECT max("id")`) || phases[2].Tier != 2 {
		t.Errorf("going up: %+v", phases)
	}
}

// A class's matches are common when half its newest rowids match and
// the matches times the share reach the floor.
func TestProbeCommon(t *testing.T) {
	p := Probe{Sample: 1000, Floor: 40000, Walk: 500}
	cases := []struct {
		newest, matched int64
		want            bool
	}{
		{100000, 1000, true}, {100000, 500, false}, {200000, 500, true}, {200000, 499, false},
		{40000, 1000, true}, {39999, 1000, false}, {1000, 1000, false}, {0, 0, false}, {10, 10, false},
	}
	for _, c := range cases {
		if got := p.Common(c.newest, c.matched); got != c.want {
			t.Errorf("%d rows, %d of the sample: %v, want %v", c.newest, c.matched, got, c.want)
		}
	}
	text, args, classes := p.SampleSQL(&Search{Table: "returns", Marks: []string{"C", "A"}}, &Match{FTS: `(("x"))`})
	if !slices.Equal(classes, []string{"", "A"}) || len(args) != 4 || strings.Count(text, "?") != 4 ||
		!strings.Contains(text, `"returns_search"."rowid" <= (SELECT coalesce(max("rowid"), 0) FROM "returns") + 1099511627776)`) {
		t.Errorf("sample: %s %v %v", text, args, classes)
	}
	if (Probe{}).OrDefault() != DefaultProbe {
		t.Errorf("an unset Probe is not the default")
	}
}

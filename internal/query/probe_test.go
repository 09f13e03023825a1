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
	if !p.Dense(20000, 500) || p.Dense(20000, 499) || !p.Dense(10, 5) || p.Dense(0, 0) {
		t.Errorf("dense: half the sample matches")
	}
	if w := (&Window{Lo: 1, Hi: 2000}); !w.Compact(500) || (&Window{Lo: 1, Hi: 2001}).Compact(500) {
		t.Errorf("compact: rowids spanning less than %d walks", Spread)
	}
	if (Probe{}).OrDefault() != DefaultProbe {
		t.Errorf("an unset Probe is not the default")
	}
}

// A walk whose window was read before the page reads its common classes'
// matches over the window's range of rowids where it spans less than
// Spread walks, and looks them up record by record where it spans more;
// its bound is the window's last id, and a window with no record bounds
// nothing in.
func TestRankReadsCompactWindowsAsRanges(t *testing.T) {
	m, err := ParseQ("widget")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	r := s.Rank(SQLite, m, map[string]bool{"": true})
	last, keys := "ret-5", []Key{{Col: RankColumn, Desc: true}, {Col: IDColumn, Desc: true}}
	r.Walk.Team, r.Walk.Size = 7, 500
	r.Walk.Start = &Window{Lo: 1000, Hi: 1499 + 3*500, Bound: &last}
	phases := (&Page{Keys: keys, Limit: 100, Rank: r}).Phases()
	ranged := `+"returns"."rowid" IN (SELECT "rowid" FROM "returns_search" WHERE "returns_search" MATCH ? AND "rowid" >= ? AND "rowid" <= ?)`
	if len(phases) != 4 || !strings.HasPrefix(phases[2].Cond, ranged+` AND "returns"."rowid" NOT IN`) ||
		!strings.HasSuffix(phases[2].Cond, `AND "id" >= ?`) || phases[2].Narrow {
		t.Fatalf("tier 3 from the start: %+v", phases)
	}
	if want := []any{m.FTS, int64(1000), int64(2999), m.FTS, "ret-5"}; !slices.Equal(phases[2].Args, want) {
		t.Errorf("its args %v, want %v", phases[2].Args, want)
	}
	if !strings.HasSuffix(phases[3].Cond, `AND "id" < ?`) || phases[3].Args[len(phases[3].Args)-1] != "ret-5" {
		t.Errorf("the sets past the window: %+v", phases[3])
	}
	if !phases[0].Narrow || !phases[1].Narrow || phases[3].Narrow {
		t.Errorf("only the tiers a set drives are sorted narrow: %+v", phases)
	}
	r.Walk.Start.Hi++ // spans Spread walks: looked up record by record
	if ph := (&Page{Keys: keys, Limit: 100, Rank: r}).Phases()[2]; !strings.HasPrefix(ph.Cond, "EXISTS (") {
		t.Errorf("a spread window: %s", ph.Cond)
	}
	r.Walk.From = &Window{}
	after := &Position{Values: []any{int64(3)}, ID: "ret-9"}
	ph := (&Page{Keys: keys, Limit: 100, Rank: r, After: after}).Phases()
	if len(ph) != 2 || !strings.HasSuffix(ph[0].Cond, `AND "id" >= NULL`) || !strings.HasSuffix(ph[1].Cond, `AND "id" < NULL`) {
		t.Errorf("an empty window: %+v", ph)
	}
}

// A word the sample finds few of in the documents of every member has
// the tiers the list's index walks read from their sets, sorted narrow;
// a tier with a Probe form keeps its walk.
func TestSparseTiersReadTheirSets(t *testing.T) {
	p := DefaultProbe
	if !p.Sparse(20000, 1) || !p.Sparse(100000, 0) || p.Sparse(100000, 10) || p.Sparse(0, 0) {
		t.Errorf("sparse: matches x share x 16 below 100")
	}
	m, err := ParseQ("zanzibar -rusty")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	r := s.Rank(SQLite, m, nil)
	r.Sparse()
	for i, tier := range r.Tiers {
		if strings.HasPrefix(tier.Cond, "+") || !tier.Sorted {
			t.Errorf("tier %d walks: %s", i+1, tier.Cond)
		}
	}
	r = s.Rank(SQLite, m, map[string]bool{"": true})
	r.Sparse()
	if !strings.HasPrefix(r.Tiers[2].Cond, "+") || r.Tiers[2].Sorted {
		t.Errorf("a probed tier no longer walks: %s", r.Tiers[2].Cond)
	}
}

// A word no heavier class matches (Probe.WeightedSQL) is read from the
// last tier alone, without the exclusion of the class before it; a page
// by offset orders by the tiers left.
func TestUnweightedReadsTheLastTierAlone(t *testing.T) {
	m, err := ParseQ("widget")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	text, args := DefaultProbe.WeightedSQL(s, m)
	if !strings.Contains(text, `"rowid" >= 1099511627776 AND "returns_search"."rowid" < 3298534883328)`) || !slices.Equal(args, []any{m.FTS}) {
		t.Errorf("weighted: %s %v", text, args)
	}
	if text, _ := DefaultProbe.WeightedSQL(&Search{Table: "returns", Marks: []string{"A"}}, m); text != "" {
		t.Errorf("one class: %s", text)
	}
	r := s.Rank(SQLite, m, nil)
	s.Unweighted(r, m, nil)
	keys := []Key{{Col: RankColumn, Desc: true}, {Col: IDColumn, Desc: true}}
	phases := (&Page{Keys: keys, Limit: 100, Rank: r}).Phases()
	if len(phases) != 1 || phases[0].Tier != 3 || strings.Contains(phases[0].Cond, "NOT IN") || len(phases[0].Args) != 1 {
		t.Errorf("phases: %+v", phases)
	}
	after := &Position{Values: []any{int64(3)}, ID: "ret-9"}
	if ph := (&Page{Keys: []Key{{Col: RankColumn}, {Col: IDColumn}}, Limit: 100, Rank: r, After: after}).Phases(); len(ph) != 1 || ph[0].Tier != 3 {
		t.Errorf("going up from tier 3: %+v", ph)
	}
	if ph := (&Page{Keys: keys, Limit: 100, Offset: 5, Rank: r}).Phases(); len(ph) != 1 || strings.Contains(ph[0].OrderBy, "WHEN") {
		t.Errorf("by offset: %+v", ph)
	}
}

// A walk is sized by the sample's share of matches: twice what it says a
// page needs, within want and Walk.
func TestWalkForFollowsTheShare(t *testing.T) {
	p := DefaultProbe
	for _, c := range []struct {
		want            int
		newest, matched int64
		size            int
	}{
		{101, 100000, 1000, 202}, {101, 100000, 500, 404}, {101, 100000, 100, 500},
		{101, 100000, 0, 500}, {101, 0, 0, 500}, {2, 60, 30, 8}, {2, 60, 60, 4}, {21, 10, 10, 42}, {300, 1000, 1000, 500},
	} {
		if got := p.WalkFor(c.want, c.newest, c.matched); got != c.size {
			t.Errorf("WalkFor(%d, %d, %d) = %d, want %d", c.want, c.newest, c.matched, got, c.size)
		}
	}
}

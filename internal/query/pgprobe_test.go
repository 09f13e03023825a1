package query

import (
	"strings"
	"testing"
)

// On PostgreSQL, a sampled search's tiers are prepared: a common tier
// walks the id index with a match no GIN index serves, for the first
// records, then reads the rest from the GIN index, sorted; a rare tier
// reads the GIN index alone; an unsampled one is planned each time.
func TestPGRankPlansOncePerWordClass(t *testing.T) {
	m, err := ParseQ("widget")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	if plain := s.Rank(Postgres, m, nil); !plain.PlanEachTime || plain.Prepared || plain.Walk != nil {
		t.Errorf("unsampled: %+v", plain)
	}
	r := s.Rank(Postgres, m, map[string]bool{"": true, "A": false, "B": false})
	if r.PlanEachTime || !r.Prepared || r.Walk == nil || r.Walk.Table != "returns" {
		t.Fatalf("sampled: %+v", r)
	}
	if r.Tiers[0].Probe != nil || r.Tiers[1].Probe != nil || r.Tiers[2].Probe == nil {
		t.Fatalf("only the last tier walks: %+v", r.Tiers)
	}
	q := `(SELECT websearch_to_tsquery('english'::regconfig, ?))`
	want := `"records_search" @@ ` + q + ` AND NOT "records_search_b" @@ ` + q + ` AND pg_backend_pid() > 0`
	if got := r.Tiers[2]; got.Cond != want || !got.Sorted || len(got.Args) != 2 {
		t.Errorf("tier 3: %+v, want %s", got, want)
	}
	walk := `ts_match_vq("records_search", ` + q + `) AND NOT "records_search_b" @@ ` + q
	if got := r.Tiers[2].Probe; got.Cond != walk || got.Sorted {
		t.Errorf("tier 3's walk: %+v, want %s", got, walk)
	}
	r.Walk.Team, r.Walk.Size = 7, 500
	keys := []Key{{Col: RankColumn, Desc: true}, {Col: IDColumn, Desc: true}}
	phases := (&Page{Keys: keys, Limit: 100, Rank: r}).Phases()
	if len(phases) != 4 {
		t.Fatalf("phases: %+v", phases)
	}
	if !strings.HasSuffix(phases[2].Cond, `ORDER BY "id" DESC LIMIT 500) AS "walk")`) {
		t.Errorf("the walk's bound: %s", phases[2].Cond)
	}
	if phases[0].OrderBy != `"id" || '' DESC` || phases[2].OrderBy != `"id" DESC` || phases[3].OrderBy != `"id" || '' DESC` {
		t.Errorf("orders: %q %q %q", phases[0].OrderBy, phases[2].OrderBy, phases[3].OrderBy)
	}
	text, args, classes := s.PGSampleSQL(m, 7)
	if strings.Count(text, "?") != len(args) || len(classes) != 3 || classes[2] != "" || args[len(args)-1] != 7 {
		t.Errorf("sample: %s %v %v", text, args, classes)
	}
	for _, c := range []struct {
		read, matched int64
		common, known bool
	}{{0, 0, false, true}, {100, 0, false, true}, {100, 25, true, true}, {100, 24, false, false}, {3, 1, true, true}} {
		if common, known := PGClass(c.read, c.matched); common != c.common || known != c.known {
			t.Errorf("PGClass(%d, %d) = %v, %v", c.read, c.matched, common, known)
		}
	}
}

package query

import (
	"slices"
	"strings"
	"testing"
)

// q is read as web search engines read it, and written for both engines.
func TestParseQ(t *testing.T) {
	cases := []struct{ q, web, fts string }{
		{`refund`, `"refund"`, `(("refund"))`},
		{`refund "wrong item" -damaged`, `"refund" "wrong item" -"damaged"`, `(("refund" AND "wrong item") NOT "damaged")`},
		{`a1 b1 or c1`, `"a1" "b1" or "c1"`, `(("a1" AND "b1")) OR (("c1"))`},
		{`or refund or`, `"refund"`, `(("refund"))`},
		{`the refund`, `"refund"`, `(("refund"))`},
		{`ana@example.com`, `"ana@example.com"`, `(("ana example com"))`},
		{`NEAR(refund, 2)`, `"NEAR refund" "2"`, `(("NEAR refund" AND "2"))`},
		{`"unbalanced phrase`, `"unbalanced phrase"`, `(("unbalanced phrase"))`},
		{`col:word*`, `"col word"`, `(("col word"))`},
		// Stop words beginning or ending an item are not looked for; an
		// item of stop words alone is no item.
		{`refund "the" it's don't Thé`, `"refund"`, `(("refund"))`},
		{`"the refund" zanzibar:a`, `"the refund" "zanzibar a"`, `(("refund" AND "zanzibar"))`},
		{`"end of life"`, `"end of life"`, `(("end of life"))`},
		{`refund "or" damaged`, `"refund" "damaged"`, `(("refund" AND "damaged"))`},
	}
	for _, c := range cases {
		m, err := ParseQ(c.q)
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		if m.Web != c.web {
			t.Errorf("%q: web %q, want %q", c.q, m.Web, c.web)
		}
		if m.FTS != c.fts {
			t.Errorf("%q: fts %q, want %q", c.q, m.FTS, c.fts)
		}
	}
	for _, q := range []string{"", "   ", "-refund", "the and of", `"the" -refund`, `it's -zanzibar`, `don't`, `"of the"`, `"the"`, "!!! ...", strings.Repeat("a", 257), "a\x00"} {
		if _, err := ParseQ(q); err == nil {
			t.Errorf("%q: no error", q)
		}
	}
}

// FuzzParseQ: any text is a query or an error, never a panic; a query
// gives FTS5 nothing outside double quotes but its own operators and
// parentheses, and PostgreSQL every word in double quotes.
func FuzzParseQ(f *testing.F) {
	for _, q := range []string{`refund`, `"a b" -c or d`, `NEAR(a b)`, `a* ^b col:c`, `"`, `-"" or or`, `é 東京 🙂`} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		m, err := ParseQ(q)
		if err != nil {
			return
		}
		outside := func(s string) string {
			var b strings.Builder
			in := false
			for _, r := range s {
				switch {
				case r == '"':
					in = !in
				case !in:
					b.WriteRune(r)
				}
			}
			if in {
				t.Fatalf("%q: unbalanced quotes in %q", q, s)
			}
			return b.String()
		}
		for _, w := range strings.Fields(strings.NewReplacer("(", " ", ")", " ").Replace(outside(m.FTS))) {
			if w != "AND" && w != "OR" && w != "NOT" {
				t.Fatalf("%q: FTS5 query %q has %q outside quotes", q, m.FTS, w)
			}
		}
		for _, w := range strings.Fields(outside(m.Web)) {
			if w != "or" && w != "-" {
				t.Fatalf("%q: web query %q has %q outside quotes", q, m.Web, w)
			}
		}
	})
}

// A search's tiers: on SQLite the FTS5 queries of the classes' ranges of
// rowids, the class before excluded, the last tier from the documents of
// every member; on
// PostgreSQL the class columns, likewise. A query with an exclusion needs
// the whole match in every tier; a resource whose members weigh alike has
// one tier.
func TestRankTiers(t *testing.T) {
	m, err := ParseQ("blue widget")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	fts := `FROM "returns_search" WHERE "returns_search" MATCH ? AND "rowid" `
	in := map[string]string{
		"":  ` IN (SELECT "rowid" ` + fts + `< 1099511627776)`,
		"A": ` IN (SELECT "rowid" - 1099511627776 ` + fts + `>= 1099511627776 AND "rowid" < 2199023255552)`,
		"B": ` IN (SELECT "rowid" - 2199023255552 ` + fts + `>= 2199023255552 AND "rowid" < 3298534883328)`,
	}
	row := `"returns"."rowid"`
	want := []string{
		row + in["A"],
		row + in["B"] + " AND " + row + " NOT" + in["A"],
		"+" + row + in[""] + " AND " + row + " NOT" + in["B"],
	}
	r := s.Rank(SQLite, m, nil)
	if len(r.Tiers) != len(want) {
		t.Fatalf("%d tiers, want %d", len(r.Tiers), len(want))
	}
	for i, tier := range r.Tiers {
		if tier.Cond != want[i] || len(tier.Args) != strings.Count(want[i], "?") || tier.Args[0] != m.FTS {
			t.Errorf("tier %d: %s %v, want %s", i+1, tier.Cond, tier.Args, want[i])
		}
	}
	pg := s.Rank(Postgres, m, nil)
	if !pg.PlanEachTime || len(pg.Tiers) != 3 || !strings.HasPrefix(pg.Tiers[1].Cond, `"records_search_b" @@`) ||
		!strings.Contains(pg.Tiers[1].Cond, `NOT "records_search_a" @@`) || len(pg.Tiers[1].Args) != 2 {
		t.Errorf("PostgreSQL's tier 2: %+v", pg.Tiers[1])
	}
	m, _ = ParseQ("blue -widget")
	if got := s.Rank(SQLite, m, nil).Tiers[0].Cond; got != "+"+row+in[""]+" AND "+row+in["A"] {
		t.Errorf("tier 1 with an exclusion: %s", got)
	}
	if pg := s.Rank(Postgres, m, nil); !strings.HasPrefix(pg.Tiers[0].Cond, `"records_search" @@`) || len(pg.Tiers[0].Args) != 2 {
		t.Errorf("PostgreSQL's tier 1 with an exclusion: %+v", pg.Tiers[0])
	}
	one := &Search{Table: "customers", Marks: []string{"A", "A"}}
	if r := one.Rank(Postgres, m, nil); len(r.Tiers) != 1 || r.Tiers[0].Cond != r.Match.Cond {
		t.Errorf("one weight: %+v", r.Tiers)
	}
}

// On SQLite the tiers whose set of matches drives the plan (read by rowid,
// then sorted) sort narrow: rowids, then the page's records by rowid; the
// tiers the list's index walks, and PostgreSQL's, do not.
func TestSortedTiersSortNarrow(t *testing.T) {
	m, err := ParseQ("zanzibar")
	if err != nil {
		t.Fatal(err)
	}
	s := &Search{Table: "returns", Marks: []string{"C", "B", "A"}}
	keys := []Key{{Col: RankColumn, Desc: true}, {Col: IDColumn, Desc: true}}
	for d, want := range map[Dialect][]bool{SQLite: {true, true, false}, Postgres: {false, false, false}} {
		phases := (&Page{Keys: keys, Limit: 100, Rank: s.Rank(d, m, nil)}).Phases()
		var got []bool
		for _, ph := range phases {
			got = append(got, ph.Narrow)
		}
		if !slices.Equal(got, want) {
			t.Errorf("dialect %v: narrow %v, want %v", d, got, want)
		}
	}
}

package query

import (
	"strconv"
	"strings"

	"records/internal/spec"
)

// PostgreSQL's relevance tiers planned once per word class.
//
// A tier's statement written with its words in the text must be planned
// every time it runs (spec.PlanEachTime): 0.3 ms a statement at a million
// records, where running one takes 0.1–0.8 ms. Where a sample of the
// team's newest records (PGSampleSQL) tells a word common or absent in
// each tier, the tiers are written instead with the words in an init plan
// (tsquery), which hides them from the planner: a custom plan is then the
// generic one, so PostgreSQL plans a prepared statement once per
// connection and reuses the plan (after its five first runs). The form of
// the match picks the plan: a tier whose records are common in the sample
// walks the list's (team, id) index with the match as a filter the GIN
// index cannot serve (ts_match_vq, the function behind @@), for the first
// records of the walk (Ranked.Walk), then reads the rest from the GIN
// index; any other tier reads its matches from the GIN index, then sorts
// them. A sample in between (a few matches) keeps the statements planned
// each time: only the planner's statistics tell such a word's cost.

// serial keeps a tier read from a GIN index from a parallel plan: the
// generic plan, blind to the words, estimates its matches at 0.5 % of the
// table (5,000 of a million), a sort PostgreSQL would share with two
// workers — whose start costs more than the sort of a rare word's few
// hundred matches. A function the planner may not run in a worker
// (parallel restricted), always true, keeps the scan in the backend.
const serial = "pg_backend_pid() > 0"

// PGSample is how many of the team's newest live records the PostgreSQL
// sample reads.
const PGSample = 100

// pgTierClass names tier k of classes in the map Search.Rank is given:
// its class, "" for the last tier (every member).
func pgTierClass(classes []string, k int) string {
	if k == len(classes)-1 {
		return ""
	}
	return classes[k]
}

// pgRank is the Ranked of a search by m on PostgreSQL with its words in
// init plans, its statements prepared: common names the tiers
// (pgTierClass) walked by the list's index, the others read from the GIN
// indexes.
func (search *Search) pgRank(m *Match, common map[string]bool) *Ranked {
	classes := search.Classes()
	web := webArg(m)
	in := func(col string, walked bool) string {
		if walked {
			return "ts_match_vq(" + spec.Ident(col) + ", " + tsquery + ")"
		}
		return spec.Ident(col) + " @@ " + tsquery
	}
	r := &Ranked{Key: m.Web, Tiers: make([]Tier, len(classes)), Prepared: true}
	r.Match = Tier{Cond: in(spec.SearchColumn, false), Args: []any{web}}
	for k := range classes {
		tier := func(walked bool) Tier {
			var t Tier
			if k == len(classes)-1 || m.Excludes {
				t.and(in(spec.SearchColumn, walked), web)
			}
			if k < len(classes)-1 {
				t.and(in(spec.SearchClassColumn(classes[k]), walked), web)
			}
			if k > 0 {
				t.and("NOT "+in(spec.SearchClassColumn(classes[k-1]), false), web)
			}
			return t
		}
		r.Tiers[k] = tier(false)
		r.Tiers[k].and(serial)
		r.Tiers[k].Sorted = true
		if common[pgTierClass(classes, k)] {
			p := tier(true)
			r.Tiers[k].Probe = &p
			r.Walk = &Walk{Table: search.Table, SizeInText: true}
		}
	}
	return r
}

// PGSampleSQL is the statement reading how many of the team's PGSample
// newest live records are in each of the tiers of a search of search's
// resource by m: one row, the records read, then a count a tier, in the
// order of pgTierClass's names (classes). Its limit is written in the
// text, so that PostgreSQL plans it once (Ranked.Prepared).
func (search *Search) PGSampleSQL(m *Match, team int) (text string, args []any, classes []string) {
	r := search.pgRank(m, nil)
	all := search.Classes()
	cols := []string{spec.Ident(spec.SearchColumn)}
	for _, c := range all[:len(all)-1] {
		cols = append(cols, spec.Ident(spec.SearchClassColumn(c)))
	}
	var b strings.Builder
	b.WriteString("SELECT count(*)")
	for k, t := range r.Tiers {
		b.WriteString(", count(*) FILTER (WHERE " + t.Cond + ")")
		args = append(args, t.Args...)
		classes = append(classes, pgTierClass(all, k))
	}
	b.WriteString(" FROM (SELECT " + strings.Join(cols, ", ") + " FROM " + spec.Ident(search.Table) +
		` WHERE "team_id" = ? AND "deleted_at" IS NULL ORDER BY "id" DESC LIMIT ` + strconv.Itoa(PGSample) + `) AS "sample"`)
	return b.String(), append(args, team), classes
}

// PGClass reads a tier's count in the sample (PGSampleSQL: read records,
// matched of them in the tier): common when a quarter or more match (a
// page of 100 is then some 400 records walked), rare when none does (or
// the team has no records), neither (known false) when a few do.
func PGClass(read, matched int64) (common, known bool) {
	switch {
	case read == 0 || matched == 0:
		return false, true
	case 4*matched >= read:
		return true, true
	}
	return false, false
}

package query

import (
	"slices"
	"strings"

	"records/internal/spec"
)

// Probe decides how a relevance tier reads the matches of a word on
// SQLite. FTS5 answers "rowid IN (SELECT rowid … MATCH ?)" with a set it
// makes in full before SQLite reads a record: what a rare word wants (its
// few records read by rowid, then sorted), but a word in most records
// costs every one of its matches (some 0.7 µs each) to answer a page of
// 100. For such a word a tier looks each record the walk of the list's
// (team, id) index reaches up in FTS5 by its rowid instead ("EXISTS
// (SELECT 1 … WHERE rowid = … AND … MATCH ?)", which FTS5 answers by
// seeking in the word's doclist: some 10 µs on a merged index, up to 80
// µs on one of many segments), and the walk stops at the page's end.
//
// Which: a table's matches are common when at least half of its newest
// Sample rowids match (a page of 100 is then at most some 200 records
// walked) and the matches, estimated as the share times the table's rows,
// times the share are at least Floor: the set costs its matches (some
// 0.25 µs each), the lookups 100 ÷ share (some 17 µs each on a merged
// table, 165 µs on one of a few segments), so the set costs more where
// matches × share > 100 × 17–165 µs ÷ 0.25 µs. A word common in the
// table but rare in the team's records (or past a filter) would have the
// walk look up every record of the team: a tier's lookups stop after Walk
// records, and the rest of the tier is read from the set (Tier.Probe).
type Probe struct {
	// Sample is how many of a table's newest rowids the share of matches
	// is read from.
	Sample int
	// Floor is the least matches × share (both estimated) worth looking
	// up record by record: 100 × what a lookup costs ÷ what a match costs
	// the set.
	Floor int
	// Walk is how many of the team's records a tier looks up at most.
	Walk int
}

// DefaultProbe is the Probe of a service that sets none.
var DefaultProbe = Probe{Sample: 1000, Floor: 40000, Walk: 500}

// OrDefault is p, or DefaultProbe where p is unset.
func (p Probe) OrDefault() Probe {
	if p.Sample <= 0 {
		return DefaultProbe
	}
	return p
}

// SampleSQL is the statement reading how common m's matches are in each
// FTS5 table search's tiers read (tables): one row, the table's largest
// rowid, then for each table how many of the Sample rowids below it m
// matches — counted by FTS5 from the word's doclist, no set made.
func (p Probe) SampleSQL(search *Search, m *Match) (text string, args []any, tables []string) {
	classes := search.Classes()
	tables = []string{spec.SearchTable(search.Table)}
	for _, c := range classes[:len(classes)-1] {
		tables = append(tables, spec.SearchClassTable(search.Table, c))
	}
	newest := `(SELECT coalesce(max("rowid"), 0) FROM ` + spec.Ident(search.Table) + `)`
	var b strings.Builder
	b.WriteString("SELECT " + newest)
	for _, t := range tables {
		fts := spec.Ident(t)
		b.WriteString(", (SELECT count(*) FROM " + fts + " WHERE " + fts + " MATCH ? AND " + fts + `."rowid" > ` + newest + " - ?)")
		args = append(args, m.FTS, p.Sample)
	}
	return b.String(), args, tables
}

// Common tells from a sample (SampleSQL: the largest rowid, and how many
// rowids of the Sample below it match) whether a table's matches are to
// be looked up record by record.
func (p Probe) Common(newest, matched int64) bool {
	n := min(int64(p.Sample), newest)
	// matches × share = (matched/n × newest) × matched/n
	return n > 0 && 2*matched >= n && matched*matched*newest >= int64(p.Floor)*n*n
}

// Walk is how far a tier's Probe form reads: Size of the team's live
// records in Table, from the page's position.
type Walk struct {
	Table string
	Team  int
	Size  int
}

// bound is the id Size records from after (nil: from the start) going
// in direction desc, as a scalar subquery of the team's live records, and
// its parameters. The records a page reads are among them: any id splits
// a tier in two in the same order, this one so that the first part looks
// up Size records at most.
func (w *Walk) bound(desc bool, after *string) (string, []any) {
	agg, dir, cmp := "max", "", ` AND "id" > ?`
	if desc {
		agg, dir, cmp = "min", " DESC", ` AND "id" < ?`
	}
	args := []any{w.Team}
	text := `(SELECT ` + agg + `("id") FROM (SELECT "id" FROM ` + spec.Ident(w.Table) + ` WHERE "team_id" = ? AND "deleted_at" IS NULL`
	if after != nil {
		text += cmp
		args = append(args, *after)
	}
	return text + ` ORDER BY "id"` + dir + ` LIMIT ?))`, append(args, w.Size)
}

// ftsCond is one condition of a tier on SQLite: the records an FTS5
// table matches (or, not, does not match); walked, a condition that must
// not drive the plan (the list's index is walked instead).
type ftsCond struct {
	table  string
	not    bool
	walked bool
}

// tierOf writes a tier's conditions: as sets, and, when common names a
// table of them, with that table's matches looked up record by record.
func (search *Search) tierOf(conds []ftsCond, m *Match, common map[string]bool) Tier {
	row := spec.Ident(search.Table) + `."rowid"`
	var set, probe Tier
	probed := false
	for _, c := range conds {
		fts := spec.Ident(c.table)
		cond := row + ` IN (SELECT "rowid" FROM ` + fts + " WHERE " + fts + " MATCH ?)"
		switch {
		case c.not:
			cond = strings.Replace(cond, " IN ", " NOT IN ", 1)
		case c.walked:
			cond = "+" + cond
		}
		set.and(cond, m.FTS)
		if common[c.table] {
			probed = true
			cond = "EXISTS (SELECT 1 FROM " + fts + " WHERE " + fts + `."rowid" = ` + row + " AND " + fts + " MATCH ?)"
			if c.not {
				cond = "NOT " + cond
			}
		}
		probe.and(cond, m.FTS)
	}
	if probed {
		set.Probe = &probe
	}
	return set
}

// and adds a condition and its parameters to t's.
func (t *Tier) and(cond string, args ...any) {
	if t.Cond != "" {
		t.Cond += " AND "
	}
	t.Cond += cond
	t.Args = append(slices.Clip(t.Args), args...)
}

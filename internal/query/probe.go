package query

import (
	"slices"
	"strconv"
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
// Which: a class's matches (the documents of its members in the FTS5
// table, spec.SearchClassRowid) are common when at least half of its
// newest Sample rowids match (a page of 100 is then at most some 200
// records walked) and the matches, estimated as the share times the records,
// times the share are at least Floor: the set costs its matches (some
// 0.25 µs each), the lookups 100 ÷ share (some 17 µs each on a merged
// index, 165 µs on one of a few segments), so the set costs more where
// matches × share > 100 × 17–165 µs ÷ 0.25 µs. A word common in the
// class but rare in the team's records (or past a filter) would have the
// walk look up every record of the team: a tier's lookups stop after Walk
// records, and the rest of the tier is read from the set (Tier.Probe).
type Probe struct {
	// Sample is how many of a class's newest rowids the share of matches
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
// document search's tiers read (classes: "" for that of every member,
// then the heavier classes', spec.SearchClassRowid): one row, the table's
// largest rowid, then for each class how many of the Sample rowids below
// it m matches — counted by FTS5 from the word's doclist over a range of
// rowids, no set made.
func (p Probe) SampleSQL(search *Search, m *Match) (text string, args []any, classes []string) {
	all := search.Classes()
	classes = append([]string{""}, all[:len(all)-1]...)
	fts := spec.Ident(spec.SearchTable(search.Table))
	newest := `(SELECT coalesce(max("rowid"), 0) FROM ` + spec.Ident(search.Table) + `)`
	var b strings.Builder
	b.WriteString("SELECT " + newest)
	for _, c := range classes {
		last := newest + ftsCond{class: c}.offset()
		b.WriteString(", (SELECT count(*) FROM " + fts + " WHERE " + fts + " MATCH ? AND " + fts + `."rowid" > ` + last + " - ? AND " +
			fts + `."rowid" <= ` + last + ")")
		args = append(args, m.FTS, p.Sample)
	}
	return b.String(), args, classes
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
	// SizeInText writes Size in the statement's text rather than as a
	// parameter: PostgreSQL plans a prepared statement once only where a
	// custom plan sees nothing the generic one does not (Ranked.Prepared).
	SizeInText bool
}

// bound is the id Size records from after (nil: from the start) going
// in direction desc, as a scalar subquery of the team's live records, and
// its parameters. The records a page reads are among them: any id splits
// a tier in two in the same order, this one so that the first part looks
// up Size records at most. (PostgreSQL 15 wants the inner one named.)
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
	if w.SizeInText {
		return text + ` ORDER BY "id"` + dir + ` LIMIT ` + strconv.Itoa(w.Size) + `) AS "walk")`, args
	}
	return text + ` ORDER BY "id"` + dir + ` LIMIT ?) AS "walk")`, append(args, w.Size)
}

// ftsCond is one condition of a tier on SQLite: the records whose
// documents of class (spec.SearchClassRowid; "" for that of every member)
// match (or, not, do not); walked, a condition that must not drive the
// plan (the list's index is walked instead).
type ftsCond struct {
	class  string
	not    bool
	walked bool
}

// offset is what the class's rowids add to a record's, as SQL.
func (c ftsCond) offset() string {
	if c.class == "" {
		return ""
	}
	return " + " + strconv.FormatInt(spec.SearchClassRowid(c.class), 10)
}

// set is the condition as a set of the records' rowids FTS5 makes first,
// read from the class's range of rowids; one parameter, the match.
func (c ftsCond) set(search *Search) string {
	fts := spec.Ident(spec.SearchTable(search.Table))
	rowids := `"rowid" < ` + strconv.FormatInt(spec.SearchRowids, 10)
	first := `"rowid"`
	if c.class != "" {
		from := spec.SearchClassRowid(c.class)
		first = `"rowid" - ` + strconv.FormatInt(from, 10)
		rowids = `"rowid" >= ` + strconv.FormatInt(from, 10) + ` AND "rowid" < ` + strconv.FormatInt(from+spec.SearchRowids, 10)
	}
	in := " IN "
	if c.not {
		in = " NOT IN "
	}
	return spec.Ident(search.Table) + `."rowid"` + in + `(SELECT ` + first + ` FROM ` + fts + " WHERE " + fts + " MATCH ? AND " + rowids + ")"
}

// probe is the condition as a lookup of the record's document by rowid;
// one parameter, the match.
func (c ftsCond) probe(search *Search) string {
	fts := spec.Ident(spec.SearchTable(search.Table))
	cond := "EXISTS (SELECT 1 FROM " + fts + " WHERE " + fts + `."rowid" = ` + spec.Ident(search.Table) + `."rowid"` + c.offset() +
		" AND " + fts + " MATCH ?)"
	if c.not {
		return "NOT " + cond
	}
	return cond
}

// tierOf writes a tier's conditions: as sets, and, when common names a
// class of them, with that class's matches looked up record by record.
func (search *Search) tierOf(conds []ftsCond, m *Match, common map[string]bool) Tier {
	var set, probe Tier
	probed := false
	for _, c := range conds {
		cond := c.set(search)
		if c.walked {
			cond = "+" + cond
		}
		set.and(cond, m.FTS)
		if common[c.class] {
			probed = true
			cond = c.probe(search)
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

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
// Where those Walk records' rowids span few (Window, Spread), one FTS5
// query reads the matches over their range instead of a lookup a record
// (Tier.Ranged).
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

// WeightedSQL is the statement telling whether m matches any document of
// a class heavier than the last (spec.SearchClassRowid), one FTS5 query
// over their range of rowids (some 20 µs where none does); nil where
// there is one class. Where none does, every tier but the last is empty,
// and the last holds every match (Ranked.Unweighted): the page reads one
// tier, where it read one a class (some 0.1–0.2 ms each, empty).
func (p Probe) WeightedSQL(search *Search, m *Match) (string, []any) {
	classes := search.Classes()
	if len(classes) < 2 {
		return "", nil
	}
	fts := spec.Ident(spec.SearchTable(search.Table))
	last := spec.SearchClassRowid(classes[len(classes)-1])
	return "SELECT EXISTS (SELECT 1 FROM " + fts + " WHERE " + fts + " MATCH ? AND " + fts + `."rowid" >= ` +
		strconv.FormatInt(spec.SearchRowids, 10) + " AND " + fts + `."rowid" < ` + strconv.FormatInt(last, 10) + ")", []any{m.FTS}
}

// Common tells from a sample (SampleSQL: the largest rowid, and how many
// rowids of the Sample below it match) whether a table's matches are to
// be looked up record by record.
func (p Probe) Common(newest, matched int64) bool {
	n := min(int64(p.Sample), newest)
	// matches × share = (matched/n × newest) × matched/n
	return n > 0 && 2*matched >= n && matched*matched*newest >= int64(p.Floor)*n*n
}

// Dense tells from a sample that at least half of it matches: common
// below the Floor where the walk's window is Compact, its matches then
// read over a range of rowids (Tier.Ranged) at some 0.5 ms a page.
func (p Probe) Dense(newest, matched int64) bool {
	n := min(int64(p.Sample), newest)
	return n > 0 && 2*matched >= n
}

// WalkFor is the walk of a page of want records that reads one tier (a
// word no heavier class matches, Search.Unweighted) and nothing but the
// match, from a sample of the documents of every member: twice the
// records its share of matches says hold want, at least want, at most
// Walk. A shorter walk reads a shorter window, and the tier a shorter
// range of rowids (some 0.6 µs a rowid); one too short for the page has
// the rest of the tier read from its set: a slower page, never another
// answer.
func (p Probe) WalkFor(want int, newest, matched int64) int {
	n := min(int64(p.Sample), newest)
	if matched <= 0 || n <= 0 {
		return p.Walk
	}
	size := (2*int64(want)*n + matched - 1) / matched
	return int(min(max(size, int64(want)), int64(p.Walk)))
}

// Sparse tells from a sample of the documents of every member that a
// tier the list's index walks (the last, or every one of a query with an
// exclusion) costs less read from its set: its matches (share × newest,
// each looked up and sorted, some 1–8 µs) against the records walked to
// find a page (100 ÷ share, some 0.25 µs each). A word the newest rowids
// hold few of but older records many is then read whole: its set is made
// in full either way, the lookups are what it adds.
func (p Probe) Sparse(newest, matched int64) bool {
	n := min(int64(p.Sample), newest)
	return n > 0 && matched*matched*newest*16 < 100*n*n
}

// Sparse has the tiers the list's index walks read from their sets
// instead (Probe.Sparse): their records looked up by rowid, then sorted.
// A tier with a Probe form walks as it did.
func (r *Ranked) Sparse() {
	for i, t := range r.Tiers {
		if t.Probe == nil && strings.HasPrefix(t.Cond, "+") {
			r.Tiers[i].Cond, r.Tiers[i].Sorted = t.Cond[1:], true
		}
	}
}

// Compact tells a window whose rowids span less than Spread walks of size.
func (w *Window) Compact(size int) bool { return w.Hi-w.Lo < int64(Spread*size) }

// Walk is how far a tier's Probe form reads: Size of the team's live
// records in Table, from the page's position.
type Walk struct {
	Table string
	Team  int
	Size  int
	// Start and From are the walk's windows from the start and from the
	// page's position, where read before the page (WindowSQL; nil: the
	// bound is a subquery of each phase).
	Start, From *Window
	// Windows tells a walk whose windows are read before the page
	// (WindowSQL): SQLite's, where the rowids of records made through the
	// service follow their ids. PostgreSQL's bound stays a subquery.
	Windows bool
	// SizeInText writes Size in the statement's text rather than as a
	// parameter: PostgreSQL plans a prepared statement once only where a
	// custom plan sees nothing the generic one does not (Ranked.Prepared).
	SizeInText bool
}

// Window is what a walk of Size records reaches: the least and greatest
// rowid among them, and the id of the last (nil: no record to walk).
type Window struct {
	Lo, Hi int64
	Bound  *string
}

// Spread is how many times Size the rowids of a window may span for its
// matches to be read as a range of each common class's rowids (one FTS5
// query, its doclists read over the range) rather than looked up record by
// record: records made through the service get rowids in the order of
// their ids (UUIDv7), so a window of 500 spans some 500 rowids.
const Spread = 4

// WindowSQL is the statement reading the window of the walk from after
// (nil: the start) in direction desc.
func (w *Walk) WindowSQL(desc bool, after *string) (string, []any) {
	records, last, args := w.records(`"rowid", "id"`, desc, after)
	return `SELECT min("rowid"), max("rowid"), ` + last + `("id") FROM ` + records, args
}

// records is the walk's records from after (nil: the start) going in
// direction desc, as a subquery of the team's live records reading cols;
// last is the aggregate naming the walk's last id (max going up, min
// going down); args are its parameters.
func (w *Walk) records(cols string, desc bool, after *string) (text, last string, args []any) {
	last, dir, cmp := "max", "", ` AND "id" > ?`
	if desc {
		last, dir, cmp = "min", " DESC", ` AND "id" < ?`
	}
	args = []any{w.Team}
	text = `(SELECT ` + cols + ` FROM ` + spec.Ident(w.Table) + ` WHERE "team_id" = ? AND "deleted_at" IS NULL`
	if after != nil {
		text += cmp
		args = append(args, *after)
	}
	text += ` ORDER BY "id"` + dir + ` LIMIT `
	if w.SizeInText {
		return text + strconv.Itoa(w.Size) + `)`, last, args
	}
	return text + `?)`, last, append(args, w.Size)
}

// window is the walk's window from after, nil where not read.
func (w *Walk) window(after *string) *Window {
	if after == nil {
		return w.Start
	}
	return w.From
}

// bound is the id Size records from after (nil: from the start) going
// in direction desc, as a scalar subquery of the team's live records, and
// its parameters. The records a page reads are among them: any id splits
// a tier in two in the same order, this one so that the first part looks
// up Size records at most. (PostgreSQL 15 wants the inner one named.)
func (w *Walk) bound(desc bool, after *string) (string, []any) {
	if win := w.window(after); win != nil {
		if win.Bound == nil {
			return "NULL", nil // nothing to walk: no record is beyond
		}
		return "?", []any{*win.Bound}
	}
	records, last, args := w.records(`"id"`, desc, after)
	return `(SELECT ` + last + `("id") FROM ` + records + ` AS "walk")`, args
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

// ranged is the condition as a set of the records' rowids read from a
// window's range of the class's rowids (Window); parameters: the match,
// then rangeArgs.
func (c ftsCond) ranged(search *Search) string {
	fts := spec.Ident(spec.SearchTable(search.Table))
	first := `"rowid"`
	if c.class != "" {
		first = `"rowid" - ` + strconv.FormatInt(spec.SearchClassRowid(c.class), 10)
	}
	in := " IN "
	if c.not {
		in = " NOT IN "
	}
	return "+" + spec.Ident(search.Table) + `."rowid"` + in + `(SELECT ` + first + ` FROM ` + fts + " WHERE " + fts +
		` MATCH ? AND "rowid" >= ? AND "rowid" <= ?)`
}

// rangeArg stands for an end of a window's range of rowids, offset to a
// class's, in a Ranged tier's parameters until Tier.within sets it.
type rangeArg struct {
	hi     bool
	offset int64
}

// tierOf writes a tier's conditions: as sets, and, when common names a
// class of them, with that class's matches looked up record by record
// (Probe) or read over a window's range of rowids (Ranged).
func (search *Search) tierOf(conds []ftsCond, m *Match, common map[string]bool) Tier {
	var set, probe, ranged Tier
	probed := false
	for _, c := range conds {
		cond := c.set(search)
		if c.walked {
			cond = "+" + cond
		}
		set.and(cond, m.FTS)
		if !common[c.class] {
			probe.and(cond, m.FTS)
			ranged.and(cond, m.FTS)
			continue
		}
		probed = true
		probe.and(c.probe(search), m.FTS)
		var off int64
		if c.class != "" {
			off = spec.SearchClassRowid(c.class)
		}
		ranged.and(c.ranged(search), m.FTS, rangeArg{offset: off}, rangeArg{hi: true, offset: off})
	}
	if probed {
		probe.Ranged = &ranged
		set.Probe = &probe
	}
	return set
}

// within is a Ranged tier's with its range set to w's.
func (t Tier) within(w *Window) Tier {
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		args[i] = a
		if r, ok := a.(rangeArg); ok {
			args[i] = w.Lo + r.offset
			if r.hi {
				args[i] = w.Hi + r.offset
			}
		}
	}
	t.Args = args
	return t
}

// and adds a condition and its parameters to t's.
func (t *Tier) and(cond string, args ...any) {
	if t.Cond != "" {
		t.Cond += " AND "
	}
	t.Cond += cond
	t.Args = append(slices.Clip(t.Args), args...)
}

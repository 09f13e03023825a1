package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"records/internal/fold"
	"records/internal/spec"
)

// ParamQ is a list's full-text search (DESIGN §16).
const ParamQ = "q"

// MaxQ bounds q, in characters.
const MaxQ = 256

// Search is what a resource's full-text search needs: its table, and the
// weight each of its searchable members is marked with ("A" to "D"). Nil
// for a resource with none.
type Search struct {
	Table string
	Marks []string
}

// RankColumn is the order by how well a record matches q: "_rank", its
// relevance tier (Search.Tiers), best first going down.
var RankColumn = &Column{Member: "_rank", Name: "_rank", Type: spec.Integer}

// Match is a parsed q, ready for either database: the same query, written
// so that neither engine reads any of it as syntax of its own.
//
// q is read as web search engines read it (PostgreSQL's
// websearch_to_tsquery): words all match; "quoted words" match as a
// phrase; a - before a word or phrase excludes it; or between words (any
// case) makes either do, binding looser than the words around it (a b or c
// is a b, or c). Anything else is a word's letters or nothing: no input is
// an operator of either engine.
type Match struct {
	// Web is the query as websearch_to_tsquery reads it: every word or
	// phrase in double quotes, the clauses joined by or.
	Web string
	// FTS is the query as SQLite's FTS5 reads it: every term a quoted
	// string, joined by AND, NOT and OR.
	FTS string
	// Excludes tells a query with a - word or phrase: one that matches
	// within some members may not match the record.
	Excludes bool
}

// item is one word or phrase of q.
type item struct {
	neg bool
	// web are its words as PostgreSQL's parser takes them (an email
	// address stays whole); fts the letters and digits of each, for FTS5.
	web, fts []string
}

// ParseQ reads q. A q that is too long, holds a NUL, or has no word to
// look for (only punctuation, exclusions or words too common to index) is
// an error; any other text is a query.
func ParseQ(text string) (*Match, error) {
	switch {
	case utf8.RuneCountInString(text) > MaxQ:
		return nil, fmt.Errorf("is longer than %d characters", MaxQ)
	case strings.ContainsRune(text, 0):
		return nil, fmt.Errorf("holds the NUL character")
	}
	var clauses [][]item
	var clause []item
	for _, tok := range lex(text) {
		switch {
		case tok.or:
			if len(clause) > 0 {
				clauses, clause = append(clauses, clause), nil
			}
		case len(tok.fts) > 0:
			clause = append(clause, tok.item)
		}
	}
	clauses = append(clauses, clause)
	var web, fts []string
	excludes := false
	for _, c := range clauses {
		if w, f, ok := writeClause(c); ok {
			web, fts = append(web, w), append(fts, f)
			excludes = excludes || slices.ContainsFunc(c, func(it item) bool { return it.neg })
		}
	}
	if len(web) == 0 {
		return nil, fmt.Errorf("holds no word to look for (a word excluded with - needs one that is not, and words as common as \"the\" are not indexed)")
	}
	return &Match{Web: strings.Join(web, " or "), FTS: strings.Join(fts, " OR "), Excludes: excludes}, nil
}

// writeClause writes the words of one clause for each engine: false when
// it has none that must match (FTS5 cannot answer "everything but").
func writeClause(c []item) (string, string, bool) {
	var web, pos, neg []string
	for _, it := range c {
		w := `"` + strings.Join(it.web, " ") + `"`
		f := `"` + strings.Join(it.fts, " ") + `"`
		if it.neg {
			web, neg = append(web, "-"+w), append(neg, " NOT "+f)
		} else {
			web, pos = append(web, w), append(pos, f)
		}
	}
	if len(pos) == 0 {
		return "", "", false
	}
	return strings.Join(web, " "), "((" + strings.Join(pos, " AND ") + ")" + strings.Join(neg, "") + ")", true
}

// token is an item of q, or the word or.
type token struct {
	item
	or bool
}

// lex splits q into words, phrases and ors.
func lex(text string) []token {
	var out []token
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		if unicode.IsSpace(r) {
			i++
			continue
		}
		neg := false
		for i < len(rs) && rs[i] == '-' {
			neg, i = true, i+1
		}
		if i < len(rs) && rs[i] == '"' {
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			it := item{neg: neg}
			for _, w := range strings.Fields(string(rs[i+1 : j])) {
				it.add(w)
			}
			if i = j + 1; it.trimStops() {
				out = append(out, token{item: it})
			}
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '"' {
			j++
		}
		w := string(rs[i:j])
		i = j
		if !neg && strings.EqualFold(w, "or") {
			out = append(out, token{or: true})
			continue
		}
		it := item{neg: neg}
		if it.add(w); it.trimStops() {
			out = append(out, token{item: it})
		}
	}
	return out
}

// add adds word w to the item: for PostgreSQL, its letters, digits and
// the punctuation of addresses and numbers, in one or more words; for
// FTS5, its runs of letters and digits.
func (it *item) add(w string) {
	web := strings.Fields(strings.Map(func(r rune) rune {
		if wordRune(r) || strings.ContainsRune(".-@_/'+", r) {
			return r
		}
		return ' '
	}, w))
	fts := strings.FieldsFunc(w, func(r rune) bool { return !wordRune(r) })
	for _, f := range fts {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			it.fts = append(it.fts, f)
		}
	}
	if len(it.fts) > 0 {
		it.web = append(it.web, web...)
	}
}

// trimStops drops the stop words that begin or end the item's FTS5
// words, and tells whether any word is left. PostgreSQL indexes no stop
// word and its phrases skip those at their ends, so an item of stop words
// alone — the, "of the", it's, don't — is looked for on neither database
// (else PostgreSQL, reading nothing in it, would answer a "the" -refund
// with every record but the refunds), and "the refund" or zanzibar:a are
// the words between. A stop word inside a phrase stays (docs/api.md,
// Search).
func (it *item) trimStops() bool {
	for len(it.fts) > 0 && isStop(it.fts[0]) {
		it.fts = it.fts[1:]
	}
	for len(it.fts) > 0 && isStop(it.fts[len(it.fts)-1]) {
		it.fts = it.fts[:len(it.fts)-1]
	}
	return len(it.fts) > 0
}

// isStop tells a stop word, folded as PostgreSQL receives it (webArg).
func isStop(w string) bool { return stopWords[strings.ToLower(fold.String(w))] }

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

// stopWords are PostgreSQL's English stop words, which its search never
// indexes: a word among them is not looked for on either database.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves what which who
whom this that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so than too
very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()

// tsquery is PostgreSQL's query of a Match's Web text, folded (webArg):
// a subquery, so that it is made once a statement (an init plan) rather
// than once a row.
const tsquery = `(SELECT websearch_to_tsquery('english'::regconfig, ?))`

// webArg is the parameter of a Match's Web text: folded here as the
// database folds the stored words (package fold), not by records_fold in
// the statement — then a SQL function whose body the planner parsed again
// at every call it inlined, some 0.2 ms each, where a tier's statement
// had two (docs/performance.md).
func webArg(m *Match) string { return fold.String(m.Web) }

// match writes the condition of the records m matches.
func (s *sqlText) match(f *Filter) {
	m := f.Value.(*Match)
	if s.d == Postgres {
		s.write(spec.Ident(spec.SearchColumn), " @@ ", strings.TrimSuffix(tsquery, "?))"))
		s.arg(webArg(m))
		s.write("))")
		return
	}
	s.write(ftsCond{}.set(f.Search)) // its one ?, the match
	s.args = append(s.args, m.FTS)
}

// Ranked is how a page ordered by RankColumn reads its records: tier
// after tier (Search.Rank), each by id, every tier's condition holding the
// match (the page's filter leaves it out). Key is the query as the page's
// shape names it; Match the condition of every tier at once, for a page
// read by offset. PlanEachTime: the page's statements must be planned with
// their parameters (spec.PlanEachTime).
type Ranked struct {
	Key          string
	Tiers        []Tier
	Match        Tier
	PlanEachTime bool
	// Prepared: the page's statements are prepared and planned once (on
	// PostgreSQL, pgRank), their LIMIT in an init plan as their words are,
	// so that a custom plan costs what the generic plan does and
	// PostgreSQL keeps the generic one.
	Prepared bool
	// Walk bounds the records a tier's Probe form reads (SQLite); nil
	// when no tier has one.
	Walk *Walk
}

// Tier is a relevance tier: the condition of the records in it, and its
// parameters.
type Tier struct {
	Cond string
	Args []any
	// Probe is the same tier on SQLite with the matches of a common word
	// looked up record by record (Probe), nil where no word is common:
	// read for the first records of the walk (Ranked.Walk), Cond beyond.
	Probe *Tier
	// Ranged is a Probe form's twin reading each common class's matches
	// over the range of rowids of the walk's window (Window) in one FTS5
	// query: read instead of Probe where the window is known and its
	// rowids span less than Spread times the walk.
	Ranged *Tier
	// Sorted tells a tier whose set of matches drives the plan: its
	// matches are read from the set and sorted, never by walking the
	// list's index by id — on SQLite its records' rowids sorted, then
	// the records read by rowid (Phase.Narrow); on PostgreSQL ordered by
	// an expression of the id that no index holds (pgRank).
	Sorted bool
	// Empty tells a tier known to hold no record (Ranked.Unweighted): no
	// statement reads it.
	Empty bool
}

// Classes are the weights the members are marked with, heaviest first: a
// tier per class.
func (search *Search) Classes() []string {
	var out []string
	for _, w := range "ABCD" {
		if slices.Contains(search.Marks, string(w)) {
			out = append(out, string(w))
		}
	}
	return out
}

// Rank is the Ranked of a search of search's resource by m; common names
// the classes of documents in the SQLite FTS5 table in which m's matches
// are many (Probe.Common; "" for the documents of every member). On
// PostgreSQL, a common that is not nil names the tiers a sample found m
// common in (pgRank); nil plans each tier's statement with its words.
//
// Best match first reads relevance tiers an index can walk, never a score
// of every match: tier 1 holds the records that q matches within the
// members of the heaviest weight alone, tier 2 those it matches within the
// members of the two heaviest but not tier 1's, and so on; the last tier
// holds the rest of the matches. Tier k is "matches, within class k and
// not within class k-1": the classes are cumulative. A record's tier
// depends on it alone, so the order is the same on both databases and
// changes only when the record is edited.
func (search *Search) Rank(d Dialect, m *Match, common map[string]bool) *Ranked {
	classes := search.Classes()
	r := &Ranked{Key: m.Web, Tiers: make([]Tier, len(classes))}
	if d == SQLite {
		r.Key = m.FTS
		for k := range classes {
			r.Tiers[k] = search.sqliteTier(classes, k, m, common)
			if r.Tiers[k].Probe != nil {
				r.Walk = &Walk{Table: search.Table}
			}
		}
		s := &sqlText{d: d}
		s.match(&Filter{Value: m, Search: search})
		r.Match = Tier{Cond: s.b.String(), Args: s.args}
		return r
	}
	if common != nil {
		return search.pgRank(m, common) // a word class the sample knows
	}
	// The words written in the statement, not in an init plan as a
	// filter's match has them: planned with their value, each tier's
	// condition is estimated from its own column's statistics — a walk of
	// the list's index for a common word, the GIN index then a sort for a
	// rare one.
	in := func(col string) string {
		return spec.Ident(col) + " @@ websearch_to_tsquery('english'::regconfig, ?)"
	}
	web := webArg(m)
	r.PlanEachTime = true
	r.Match = Tier{Cond: in(spec.SearchColumn), Args: []any{web}}
	for k := range classes {
		var conds []string
		if k == len(classes)-1 || m.Excludes {
			conds = append(conds, r.Match.Cond)
		}
		if k < len(classes)-1 {
			conds = append(conds, in(spec.SearchClassColumn(classes[k])))
		}
		if k > 0 {
			conds = append(conds, "NOT "+in(spec.SearchClassColumn(classes[k-1])))
		}
		t := Tier{Cond: strings.Join(conds, " AND ")}
		for range conds {
			t.Args = append(t.Args, web)
		}
		r.Tiers[k] = t
	}
	return r
}

// Unweighted has r, SQLite's Ranked of a search of search by m, read a
// word that matches no document of a class heavier than the last
// (Probe.WeightedSQL) from its last tier alone: every tier before it
// needs such a match, so it is empty, and the last tier's exclusion of
// the class before it excludes nothing. The answer is the same, read
// without a statement a class.
func (search *Search) Unweighted(r *Ranked, m *Match, common map[string]bool) {
	n := len(r.Tiers)
	if n < 2 {
		return
	}
	for k := range n - 1 {
		r.Tiers[k] = Tier{Empty: true}
	}
	r.Tiers[n-1] = search.tierOf([]ftsCond{{walked: true}}, m, common)
}

// sqliteTier is tier k on SQLite: the records whose documents of class k
// (spec.SearchClassRowid; the last class's is that of every member)
// match and whose documents of class k-1 do not. Where common names a
// class whose matches are many (Probe), the tier has a Probe form too.
func (search *Search) sqliteTier(classes []string, k int, m *Match, common map[string]bool) Tier {
	var conds []ftsCond
	if k == len(classes)-1 || m.Excludes {
		// The matches are a set SQLite makes first. The last tier's,
		// where the long members' common words fall, is many: the list's
		// (team, id) index is walked, each record looked up in the set
		// ("+" keeps the set from driving the plan).
		conds = append(conds, ftsCond{walked: true})
	}
	if k < len(classes)-1 {
		// A heavier class's few matches are read by rowid, then sorted.
		conds = append(conds, ftsCond{class: classes[k]})
	}
	if k > 0 {
		conds = append(conds, ftsCond{class: classes[k-1], not: true})
	}
	t := search.tierOf(conds, m, common)
	t.Sorted = !conds[0].walked
	if t.Probe != nil {
		t.Probe.Sorted = t.Sorted && !common[conds[0].class]
		t.Probe.Ranged.Sorted = t.Probe.Sorted
	}
	return t
}

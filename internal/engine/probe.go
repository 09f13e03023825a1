package engine

import (
	"cmp"
	"context"
	"database/sql"
	"slices"

	"records/internal/edge"
	"records/internal/query"
)

// rankOf is the relevance tiers a page ordered by them reads, nil for
// another order, and the filter the page keeps beside them: the tiers
// hold the match. On SQLite, a live list's first pages look the matches
// of a common word up record by record (query.Probe); on PostgreSQL they
// are read by statements planned once per word class (query.PGSampleSQL).
func (s *Service) rankOf(ctx context.Context, search *query.Search, req *query.Request, trash Trash, team int, narrowed bool) (*query.Ranked, *query.Filter, error) {
	if req.Match == nil || !slices.ContainsFunc(req.Keys, func(k query.Key) bool { return k.Col == query.RankColumn }) {
		return nil, req.Filter, nil
	}
	var smp sample
	if trash == Live && req.Offset == 0 {
		var err error
		if s.Dialect == query.SQLite {
			alone := !narrowed && req.Unsearched == nil && accessOf(ctx) == nil
			smp, err = s.commonMatches(ctx, search, req, team, alone)
		} else {
			smp.common, err = s.pgCommonTiers(ctx, search, req.Match, team)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	r := search.Rank(s.Dialect, req.Match, smp.common)
	if smp.unweighted {
		search.Unweighted(r, req.Match, smp.common)
	}
	if smp.sparse {
		r.Sparse()
	}
	if r.Walk != nil {
		r.Walk.Team, r.Walk.Size, r.Walk.Start = team, cmp.Or(smp.size, s.Probe.OrDefault().Walk), smp.start
		r.Walk.Windows = s.Dialect == query.SQLite
	}
	return r, req.Unsearched, nil
}

// sample is what a page ordered by relevance learns of a word before it
// reads: the classes of documents its matches are common in, the walk's
// window from the start where read, whether the documents of every
// member hold few matches (query.Probe.Sparse), and whether no document
// of a class heavier than the last matches (query.Search.Unweighted).
type sample struct {
	common     map[string]bool
	start      *query.Window
	sparse     bool
	unweighted bool
	// size is the walk's (0: the Probe's Walk).
	size int
}

// commonMatches samples m in search's FTS5 table (query.Probe.SampleSQL):
// the classes the probe calls common, and, where the walk's window from
// the start spans few rowids (read then, and given back), those in which
// half the sample matches (query.Probe.Dense); whether the documents of
// every member hold few matches; and whether any document of a class
// heavier than the last matches (query.Probe.WeightedSQL). Where none
// does and the page reads nothing but the match (alone), the walk is
// sized by the sample (query.Probe.WalkFor).
//
// Its statements are bounded (a sample of the newest rowids, one EXISTS,
// a window of at most Walk entries of an index), so they run to their
// end as a read of one record does (edge.Unbounded): a cancellable
// context costs each statement two goroutines, one of database/sql's and
// one of the driver's, and on one P those a page of `widget` made were
// what held its p99 near a second (docs/performance.md). The page's
// tiers, which may read a whole set, stay interruptible.
func (s *Service) commonMatches(ctx context.Context, search *query.Search, req *query.Request, team int, alone bool) (sample, error) {
	ctx, err := edge.Unbounded(ctx)
	if err != nil {
		return sample{}, err
	}
	p := s.Probe.OrDefault()
	counts, classes, err := s.sampled(ctx, p, search, req.Match)
	if err != nil {
		return sample{}, err
	}
	r := s.reader(ctx)
	out := sample{common: map[string]bool{}, sparse: p.Sparse(counts[0], counts[1]), size: p.Walk}
	// A heavier class the sample saw match needs no check: reading its
	// tiers is right whatever they hold now; only their being empty must
	// be read fresh.
	sawWeighted := slices.ContainsFunc(counts[2:], func(n int64) bool { return n > 0 })
	if text, args := p.WeightedSQL(search, req.Match); text != "" && !sawWeighted {
		var weighted bool
		if err := r.Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(&weighted) }); err != nil {
			return sample{}, err
		}
		out.unweighted = !weighted
	}
	if out.unweighted && alone {
		out.size = p.WalkFor(req.Limit+1, counts[0], counts[1])
	}
	for i, c := range classes {
		switch {
		case p.Common(counts[0], counts[i+1]):
			out.common[c] = true
		case !p.Dense(counts[0], counts[i+1]):
		case out.start == nil:
			w := &query.Walk{Table: search.Table, Team: team, Size: out.size}
			if out.start, err = readWindow(ctx, r, w, req.Keys[len(req.Keys)-1].Desc, nil); err != nil {
				return sample{}, err
			}
			fallthrough
		default:
			out.common[c] = out.start.Compact(out.size)
		}
	}
	return out, nil
}

// sampled is the counts of m's sample and the classes it counts
// (query.Probe.SampleSQL), kept while the process writes nothing
// (sampleCache).
func (s *Service) sampled(ctx context.Context, p query.Probe, search *query.Search, m *query.Match) ([]int64, []string, error) {
	text, args, classes := p.SampleSQL(search, m)
	key, writes := text+"\x00"+m.FTS, s.DB.Writes()
	if counts, kept := s.samples.get(writes, key); kept {
		return counts, classes, nil
	}
	counts, err := s.sampleCounts(ctx, text, args, 1+len(classes))
	if err == nil {
		s.samples.put(writes, key, counts)
	}
	return counts, classes, err
}

// walkWindows reads the windows of a page's walk where a tier it reads
// has a Probe form (query.Walk.WindowSQL): from the page's position for
// the position's tier, from the start for the others. Windows are
// bounded (at most the walk's size of an index's entries), so they run to
// their end, as the sample does (commonMatches).
func walkWindows(ctx context.Context, r Reader, p *query.Page) error {
	ctx, err := edge.Unbounded(ctx)
	if err != nil {
		return err
	}
	w, desc := p.Rank.Walk, p.Keys[1].Desc
	at := 0
	if p.After != nil {
		at = int(p.After.Values[0].(int64))
	}
	for i, t := range p.Rank.Tiers {
		switch {
		case t.Probe == nil || err != nil:
		case at > 0 && (desc && i+1 < at || !desc && i+1 > at): // not read
		case i+1 == at && w.From == nil:
			w.From, err = readWindow(ctx, r, w, desc, &p.After.ID)
		case i+1 != at && w.Start == nil:
			w.Start, err = readWindow(ctx, r, w, desc, nil)
		}
	}
	return err
}

// readWindow reads the window of w from after (nil: the start).
func readWindow(ctx context.Context, r Reader, w *query.Walk, desc bool, after *string) (*query.Window, error) {
	text, args := w.WindowSQL(desc, after)
	var lo, hi sql.NullInt64
	var bound sql.NullString
	err := r.Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(&lo, &hi, &bound) })
	win := &query.Window{Lo: lo.Int64, Hi: hi.Int64}
	if bound.Valid {
		win.Bound = &bound.String
	}
	return win, err
}

// pgCommonTiers reads PostgreSQL's sample of m in the team's records
// (query.Search.PGSampleSQL) and names the tiers m is common in; nil
// where a tier holds a few of the sample, which only the planner can
// weigh.
func (s *Service) pgCommonTiers(ctx context.Context, search *query.Search, m *query.Match, team int) (map[string]bool, error) {
	text, args, classes := search.PGSampleSQL(m, team)
	counts, err := s.sampleCounts(ctx, text, args, 1+len(classes))
	if err != nil {
		return nil, err
	}
	common := map[string]bool{}
	for i, c := range classes {
		is, known := query.PGClass(counts[0], counts[i+1])
		if !known {
			return nil, nil
		}
		common[c] = is
	}
	return common, nil
}

// sampleCounts runs a sample's statement, whose one row is n counts.
func (s *Service) sampleCounts(ctx context.Context, text string, args []any, n int) ([]int64, error) {
	counts := make([]int64, n)
	dest := make([]any, n)
	for i := range counts {
		dest[i] = &counts[i]
	}
	err := s.reader(ctx).Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(dest...) })
	return counts, err
}

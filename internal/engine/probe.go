package engine

import (
	"context"
	"database/sql"
	"slices"

	"records/internal/query"
)

// rankOf is the relevance tiers a page ordered by them reads, nil for
// another order, and the filter the page keeps beside them: the tiers
// hold the match. On SQLite, a live list's first pages look the matches
// of a common word up record by record (query.Probe); on PostgreSQL they
// are read by statements planned once per word class (query.PGSampleSQL).
func (s *Service) rankOf(ctx context.Context, search *query.Search, req *query.Request, trash Trash, team int) (*query.Ranked, *query.Filter, error) {
	if req.Match == nil || !slices.ContainsFunc(req.Keys, func(k query.Key) bool { return k.Col == query.RankColumn }) {
		return nil, req.Filter, nil
	}
	var common map[string]bool
	if trash == Live && req.Offset == 0 {
		var err error
		if s.Dialect == query.SQLite {
			common, err = s.commonMatches(ctx, search, req.Match)
		} else {
			common, err = s.pgCommonTiers(ctx, search, req.Match, team)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	r := search.Rank(s.Dialect, req.Match, common)
	if r.Walk != nil {
		r.Walk.Team, r.Walk.Size = team, s.Probe.OrDefault().Walk
	}
	return r, req.Unsearched, nil
}

// commonMatches names the classes of documents in search's FTS5 table
// in which m's matches are many, from a sample of each
// (query.Probe.SampleSQL).
func (s *Service) commonMatches(ctx context.Context, search *query.Search, m *query.Match) (map[string]bool, error) {
	p := s.Probe.OrDefault()
	text, args, classes := p.SampleSQL(search, m)
	counts, err := s.sampleCounts(ctx, text, args, 1+len(classes))
	if err != nil {
		return nil, err
	}
	common := map[string]bool{}
	for i, c := range classes {
		if p.Common(counts[0], counts[i+1]) {
			common[c] = true
		}
	}
	return common, nil
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

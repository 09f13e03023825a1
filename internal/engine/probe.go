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
// of a common word up record by record (query.Probe).
func (s *Service) rankOf(ctx context.Context, search *query.Search, req *query.Request, trash Trash, team int) (*query.Ranked, *query.Filter, error) {
	if req.Match == nil || !slices.ContainsFunc(req.Keys, func(k query.Key) bool { return k.Col == query.RankColumn }) {
		return nil, req.Filter, nil
	}
	var common map[string]bool
	if s.Dialect == query.SQLite && trash == Live && req.Offset == 0 {
		var err error
		if common, err = s.commonMatches(ctx, search, req.Match); err != nil {
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
	counts := make([]int64, 1+len(classes))
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	err := s.reader(ctx).Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(dest...) })
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

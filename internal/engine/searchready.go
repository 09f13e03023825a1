package engine

import (
	"context"

	"records/internal/query"
)

// searchReady makes sure that the search index of the table f searches
// (q) holds every record committed before the request: SQLite indexes new
// records in batches after their commits, and a search first indexes its
// table's queue when it holds any (db.SearchReady). Nothing when f
// searches nothing, nor on PostgreSQL, which indexes a record as it
// writes it.
func (s *Service) searchReady(ctx context.Context, f *query.Filter) error {
	search := searchOf(f)
	if search == nil || s.Dialect != query.SQLite {
		return nil
	}
	w, _ := ctx.Value(writerKey{}).(Writer) // a read inside a write
	return s.DB.SearchReady(ctx, w, search.Table)
}

// searchOf is the search f holds, nil when none.
func searchOf(f *query.Filter) *query.Search {
	if f == nil {
		return nil
	}
	if f.Op == query.SearchOp {
		return f.Search
	}
	for _, k := range f.Kids {
		if s := searchOf(k); s != nil {
			return s
		}
	}
	return nil
}

package engine

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/wire"
)

// list answers a page — or, asked for NDJSON or CSV, streams every record —
// of the records its filter matches, in its order, from its cursor or
// offset; narrowed to the path's id when the route has one.
func (op *Op[E]) list(ctx context.Context, s *Service, c *gin.Context, members []wire.Member) (int, *Result[E], error) {
	l, err := op.plan(ctx, s, c, members)
	if err != nil {
		return 0, nil, err
	}
	if format := exportFormat(c.GetHeader("Accept")); format != "" {
		return 0, nil, op.export(c, s, format, l.page, l.team, l.req.Fields, l.view)
	}
	return op.readList(s, &l)
}

// listPlan is a list request parsed and checked, ready to be read: the
// page's statement and keys, the cursor's binding, the team, the filter a
// count reads and the view that encodes the records.
type listPlan[E any] struct {
	ctx     context.Context // the request's, with the trash it asks for
	req     *query.Request
	page    *query.Page
	binding query.Binding
	team    int
	counted *query.Filter
	view    *view[E]
}

// plan parses a list request and makes its page: the trash it reads, its
// filter, search and role's rows, narrowed to the path's id, resumed from
// its cursor.
func (op *Op[E]) plan(ctx context.Context, s *Service, c *gin.Context, members []wire.Member) (listPlan[E], error) {
	q, err := queryOf(c)
	if err != nil {
		return listPlan[E]{}, err
	}
	trash, members, err := takeTrashed(members, q)
	if err != nil {
		return listPlan[E]{}, err
	}
	if ctx, err = askTrash(ctx, op.Res, trash); err != nil {
		return listPlan[E]{}, err
	}
	if trash != Live { // an export reads it; a live list spares the copy
		c.Request = c.Request.WithContext(ctx)
	}
	l := listOf(ctx, op.Res)
	l.Extra = op.Filters
	req, err := query.ParseRequest(members, q, &l)
	if err != nil {
		return listPlan[E]{}, err
	}
	team, err := teamOf(ctx)
	if err == nil {
		err = s.searchReady(ctx, req.Filter)
	}
	if err != nil {
		return listPlan[E]{}, err
	}
	rank, filter, err := s.rankOf(ctx, l.Search, req, trash, team, c.Param("id") != "")
	if err != nil {
		return listPlan[E]{}, err
	}
	counted := req.Filter
	if id := c.Param("id"); id != "" {
		narrow := idFilter(id)
		filter, counted = query.And2(filter, narrow), query.And2(counted, narrow)
	}
	where, args := query.Where(s.Dialect, filter)
	p := &query.Page{Where: where, Args: args, Keys: req.Keys, Limit: req.Limit, Offset: req.Offset, Rank: rank}
	binding := query.Binding{Resource: op.Res.Plural, Team: team, Shape: p.Shape()}
	if trash != Live { // a cursor walks the trash it was made in
		binding.Resource += "?trashed=" + strconv.Itoa(int(trash))
	}
	if err := op.resume(ctx, s, req.Cursor, binding, team, p); err != nil {
		return listPlan[E]{}, err
	}
	v := newView(ctx, op.Res, req.Fields, req.Expand)
	if trash != Live && v == nil {
		v = &view[E]{}
	}
	return listPlan[E]{ctx: ctx, req: req, page: p, binding: binding, team: team, counted: counted, view: v}, nil
}

// readList reads the page of l, its count when asked for, and the related
// records it expands.
//
// A page (and its count) is bounded by the request's deadline and ended by
// the client's hang-up on both databases: what it costs depends on the
// client's filters (a contains no index serves reads every row), so on
// SQLite too a page that outlives the request is interrupted (503) and one
// whose client hung up stops (499). That costs a timer a page and two
// goroutines a statement (why a SQLite read of one record goes without,
// see readContext): no CPU a page beyond the runs' spread, and on SQLite
// the goroutines keep the connections served in turn: the list's p99 is a
// third shorter than with statements interrupted without them
// (docs/performance.md, "statements interrupted by their connections").
func (op *Op[E]) readList(s *Service, l *listPlan[E]) (int, *Result[E], error) {
	ctx, cancel := edge.Bounded(l.ctx)
	defer cancel()
	p := l.page
	records, tiers, page, err := readPage(ctx, s.reader(ctx), op.Res, l.team, p)
	if err != nil {
		return 0, nil, err
	}
	r := &Result[E]{Paging: Paging{Limit: p.Limit, Offset: p.Offset}, view: l.view, page: page}
	if len(records) > p.Limit {
		records, r.Paging.HasMore = records[:p.Limit], true
		r.Paging.NextCursor = s.Cursors.Encode(l.binding, p.Keys, op.Res.position(p.Keys, records[p.Limit-1], tiers[p.Limit-1]))
	}
	if l.req.Count != query.NoCount {
		r.Paging.Counted = true
		if r.Paging.Total, r.Paging.Estimated, err = count(ctx, s, op.Res, l.team, countOf(s, p, l.counted), l.req.Count); err != nil {
			return 0, nil, err
		}
	}
	if err := loadPage(ctx, s.reader(ctx), op.Res, l.team, l.view, records); err != nil {
		return 0, nil, err
	}
	r.Records = records
	return http.StatusOK, r, nil
}

// resume starts page p after the record the cursor names, if there is a
// cursor: one made for this list (binding) only.
func (op *Op[E]) resume(ctx context.Context, s *Service, cursor string, binding query.Binding, team int, p *query.Page) error {
	if cursor == "" {
		return nil
	}
	var err error
	if p.After, err = s.Cursors.Decode(cursor, binding, p.Keys); err != nil {
		return problem.Member(query.ParamCursor, "%v", err)
	}
	if err := p.CheckTier(); err != nil {
		return problem.Member(query.ParamCursor, "%v", err)
	}
	return resolveCursor(ctx, s.reader(ctx), op.Res, team, p)
}

// queryOf is the request's query string, parsed.
func queryOf(c *gin.Context) (url.Values, error) {
	if c.Request.URL.RawQuery == "" {
		return nil, nil
	}
	q, err := url.ParseQuery(c.Request.URL.RawQuery)
	if err != nil {
		return nil, problem.New(problem.InvalidRequest, "the query string is malformed: %v", err)
	}
	return q, nil
}

// idFilter narrows a list to the path's id; an id no record can have
// narrows it to nothing.
func idFilter(id string) *query.Filter {
	if wire.CheckID(id) != nil {
		return &query.Filter{Op: query.In, Col: query.IDColumn}
	}
	return &query.Filter{Op: query.Eq, Col: query.IDColumn, Value: id}
}

// loadPage loads what a page's records answer besides their rows: their
// embedded records, the view's expanded ones, and their trash state.
func loadPage[E any](ctx context.Context, r Reader, res *Resource[E], team int, v *view[E], records []*E) error {
	if err := loadEmbeds(ctx, r, res, team, records); err != nil {
		return err
	}
	if err := v.load(ctx, r, res, team, records); err != nil {
		return err
	}
	return loadTrash(ctx, r, res, team, v, records)
}

// countOf is the page whose filter a count counts: p itself, or, where p
// leaves its search to its relevance tiers, p with the whole filter.
func countOf(s *Service, p *query.Page, filter *query.Filter) *query.Page {
	if p.Rank == nil {
		return p
	}
	c := *p
	c.Where, c.Args = query.Where(s.Dialect, filter)
	return &c
}

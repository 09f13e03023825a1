package engine

import (
	"context"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"records/internal/wire"
)

// list answers a page: the list parameters from the body and the query
// string, narrowed to the path's id when the route has one.
func (op *Op[E]) list(ctx context.Context, s *Service, c *gin.Context, members []wire.Member) (int, *Result[E], error) {
	var query url.Values
	if c.Request.URL.RawQuery != "" {
		query = c.Request.URL.Query()
	}
	q, err := parseListQuery(members, query, op.Res.Columns, op.Filters)
	if err != nil {
		return 0, nil, err
	}
	if id := c.Param("id"); id != "" {
		q.Filters = append(q.Filters, Filter{Column: "id", Value: id})
	}
	ctx, cancel, err := s.readContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer cancel()
	records, err := page(ctx, s.Reader, op.Res, q)
	if err != nil {
		return 0, nil, err
	}
	r := &Result[E]{Paging: Paging{Limit: q.Limit, Offset: q.Offset}}
	if len(records) > q.Limit {
		records, r.Paging.HasMore = records[:q.Limit], true
	}
	r.Records = records
	return http.StatusOK, r, nil
}

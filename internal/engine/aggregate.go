package engine

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/db"
	"records/internal/edge"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/wire"
)

// Aggregate answers GET (or POST) /v1/<plural>/aggregate (DESIGN §16):
// the groups of the records the filter and q match, each with its
// metrics, {"groups":[{"key":{…},"count":12,…}],"truncated":false}, read
// by one statement within the request's deadline (503 beyond it, with
// nothing answered).
func (s *Service) Aggregate(plural string) gin.HandlerFunc {
	res := s.resources[plural].(Described)
	return func(c *gin.Context) {
		ctx := s.withAccess(c.Request.Context())
		c.Request = c.Request.WithContext(ctx)
		if err := accessOf(ctx).may(res, policy.Read); err != nil {
			edge.Fail(c, err)
			return
		}
		body, err := s.ReadBody(c)
		var members []wire.Member
		if err == nil {
			members, err = ParseBody(body)
		}
		var q url.Values
		if err == nil && c.Request.URL.RawQuery != "" {
			if q, err = url.ParseQuery(c.Request.URL.RawQuery); err != nil {
				err = problem.New(problem.InvalidRequest, "the query string is malformed: %v", err)
			}
		}
		if err == nil {
			err = s.routeRead(c)
		}
		if err != nil {
			edge.Fail(c, err)
			return
		}
		l := res.listing().list
		if a := accessOf(ctx); a != nil {
			l = a.view(res).list
		}
		agg, err := query.ParseAggregate(members, q, &l)
		if err != nil {
			edge.Fail(c, err)
			return
		}
		team, err := teamOf(ctx)
		if err == nil {
			err = s.searchReady(ctx, agg.Filter)
		}
		if err != nil {
			edge.Fail(c, err)
			return
		}
		scope, args := rowScope(ctx, res, policy.Read, team, nil)
		text, args := agg.SQL(s.Dialect, res.table(), scope, args)
		widths := agg.Widths(s.Dialect)
		ctx, cancel := edge.Bounded(ctx)
		defer cancel()
		out := make([]byte, 0, 1024)
		out = append(out, `{"groups":[`...)
		n := 0
		err = s.reader(ctx).Each(ctx, agg.Limit+1, text, args, func(rows *sql.Rows) error {
			n++
			if n > agg.Limit {
				return nil
			}
			var err error
			out, err = appendGroup(out, n > 1, agg, widths, rows)
			return err
		})
		if err != nil {
			edge.Fail(c, err)
			return
		}
		out = append(out, `],"truncated":`...)
		out = wire.AppendBool(out, n > agg.Limit)
		out = append(out, '}')
		edge.WriteJSON(c, http.StatusOK, func(b []byte) []byte { return append(b, out...) })
	}
}

// appendGroup appends one row of the aggregate as a group; widths are the
// columns each metric reads (Aggregate.Widths).
func appendGroup(b []byte, comma bool, agg *query.Aggregate, widths []int, rows *sql.Rows) ([]byte, error) {
	n := len(agg.Groups)
	for _, w := range widths {
		n += w
	}
	values := make([]any, n)
	dest := make([]any, len(values))
	for i := range values {
		dest[i] = &values[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return b, err
	}
	if comma {
		b = append(b, ',')
	}
	b = append(b, `{"key":{`...)
	for i, g := range agg.Groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, g.Name)
		b = append(b, ':')
		t := g.Col.Type
		if g.Bucket != "" {
			t = spec.String // the bucket's first day, as text
		}
		b = appendValue(b, t, values[i])
	}
	b = append(b, '}')
	at := len(agg.Groups)
	for j, m := range agg.Metrics {
		b = append(b, ',')
		b = wire.AppendString(b, m.Name)
		b = append(b, ':')
		cols := widths[j]
		switch m.Fn {
		case "count":
			b = appendValue(b, spec.Integer, values[at])
		case "min", "max":
			b = appendValue(b, m.Col.Type, values[at])
		default:
			var err error
			if b, err = m.AppendFigure(b, values[at:at+cols]); errors.Is(err, query.ErrBeyond) {
				return b, problem.Member(fmt.Sprintf("%s[%d]", query.ParamMetrics, j), "%s of %s %v: narrow the records with filter or q", m.Fn, m.Col.Member, err)
			} else if err != nil {
				return b, err
			}
		}
		at += cols
	}
	return append(b, '}'), nil
}

// appendValue appends a value either database answered (a driver's
// value: text as string or bytes, numbers as int64, float64 or decimal
// text, booleans as bool or 0/1, times as time.Time or SQLite's text) as
// the JSON of type t.
func appendValue(b []byte, t spec.Type, v any) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	if raw, ok := v.([]byte); ok {
		v = string(raw)
	}
	switch t {
	case spec.Integer, spec.Number:
		switch x := v.(type) {
		case int64:
			return wire.AppendInt(b, x)
		case float64:
			return wire.AppendFloat(b, x)
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return wire.AppendFloat(b, f)
			}
		}
	case spec.Boolean:
		switch x := v.(type) {
		case bool:
			return wire.AppendBool(b, x)
		case int64:
			return wire.AppendBool(b, x != 0)
		}
	case spec.Date, spec.DateTime:
		tm, ok := v.(time.Time)
		if s, isText := v.(string); isText {
			parsed, err := time.Parse(db.SQLiteTimeLayout, s)
			tm, ok = parsed, err == nil
		}
		if ok && t == spec.Date {
			return wire.AppendDate(b, tm)
		}
		if ok {
			return wire.AppendTime(b, tm)
		}
	}
	if s, ok := v.(string); ok {
		return wire.AppendString(b, s)
	}
	return append(b, "null"...)
}

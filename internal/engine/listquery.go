package engine

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// ListQuery is a validated page request: which records, in which order.
type ListQuery struct {
	Limit   int
	Offset  int
	OrderBy string // column; "id" by default
	Desc    bool
	Filters []Filter
}

// Filter restricts a list to records whose column holds Value (null: none).
type Filter struct {
	Column string
	Value  any
}

// orderSQL is the ORDER BY clause. Nulls sort last going up and first going
// down on both databases (SQLite and PostgreSQL disagree by default), and
// the id breaks ties so pages never overlap.
func (q *ListQuery) orderSQL() string {
	dir, nulls := " ASC", " NULLS LAST"
	if q.Desc {
		dir, nulls = " DESC", " NULLS FIRST"
	}
	if q.OrderBy == "" || q.OrderBy == "id" {
		return `"id"` + dir
	}
	return `"` + q.OrderBy + `"` + dir + nulls + `, "id"` + dir
}

// The list parameters a body or query may carry.
const (
	paramLimit     = "limit"
	paramOffset    = "offset"
	paramDirection = "order_direction"
	paramOrderBy   = "order_by"
	paramFilter    = "filter"
)

var listParams = []string{paramLimit, paramOffset, paramDirection, paramOrderBy, paramFilter}

// parseListQuery reads the list parameters from the body's members and the
// query string (the body wins where both give one). extra names top-level
// members the operation accepts as exact filters (List Customers' sso_id).
func parseListQuery(members []wire.Member, query url.Values, columns map[string]Column, extra []string) (*ListQuery, error) {
	values := map[string][]byte{}
	filters := map[string][]byte{}
	var errs []problem.MemberError
	valid := append(append([]string(nil), listParams...), extra...)

	// The query string first, so the body overwrites it.
	for name, vs := range query {
		raw := wire.AppendString(nil, vs[len(vs)-1])
		switch {
		case strings.HasPrefix(name, "filter[") && strings.HasSuffix(name, "]"):
			filters[name[len("filter["):len(name)-1]] = raw
		case slices.Contains(valid, name) && name != paramFilter:
			values[name] = raw
		default:
			errs = append(errs, unknownMember(name, name, valid, "query parameter"))
		}
	}
	for _, m := range members {
		switch {
		case m.Name == paramFilter:
			fm, err := wire.ParseObject(m.Value)
			if err != nil || wire.Kind(m.Value) != "an object" {
				errs = append(errs, problem.MemberError{Member: paramFilter, Problem: "must be an object of member names to values"})
				continue
			}
			for _, f := range fm {
				filters[f.Name] = f.Value
			}
		case slices.Contains(valid, m.Name):
			values[m.Name] = m.Value
		default:
			errs = append(errs, unknownMember(m.Name, m.Name, valid, "member"))
		}
	}
	for _, name := range extra {
		if v, ok := values[name]; ok {
			filters[name] = v
		}
	}

	q := &ListQuery{Limit: spec.DefaultLimit, OrderBy: "id"}
	if v, ok := values[paramLimit]; ok {
		n, err := wire.Int64(v)
		if err != nil || n < 1 || n > spec.MaxLimit {
			errs = append(errs, problem.MemberError{Member: paramLimit, Problem: fmt.Sprintf("must be a whole number from 1 to %d", spec.MaxLimit)})
		}
		q.Limit = int(n)
	}
	if v, ok := values[paramOffset]; ok {
		n, err := wire.Int64(v)
		if err != nil || n < 0 || n > 1<<31 {
			errs = append(errs, problem.MemberError{Member: paramOffset, Problem: "must be a whole number, 0 or more"})
		}
		q.Offset = int(n)
	}
	if v, ok := values[paramDirection]; ok {
		s, _ := wire.Text(v)
		switch strings.ToLower(s) {
		case "asc":
		case "desc":
			q.Desc = true
		default:
			errs = append(errs, problem.MemberError{Member: paramDirection, Problem: `must be "asc" or "desc" (any case)`})
		}
	}
	if v, ok := values[paramOrderBy]; ok {
		s, err := wire.Text(v)
		col, known := columns[s]
		switch {
		case err != nil:
			errs = append(errs, problem.MemberError{Member: paramOrderBy, Problem: "must be a member name"})
		case !known:
			errs = append(errs, problem.MemberError{Member: paramOrderBy, Problem: "no member " + quote(s) + didYouMean(s, slices.Sorted(maps.Keys(columns)))})
		default:
			q.OrderBy = col.Name
		}
	}
	for _, name := range slices.Sorted(maps.Keys(filters)) {
		member := paramFilter + "." + name
		if slices.Contains(extra, name) {
			member = name
		}
		col, ok := columns[name]
		if !ok {
			errs = append(errs, problem.MemberError{Member: member, Problem: "no member " + quote(name) + " to filter by" + didYouMean(name, slices.Sorted(maps.Keys(columns)))})
			continue
		}
		raw := filters[name]
		if wire.IsNull(raw) {
			q.Filters = append(q.Filters, Filter{Column: col.Name})
			continue
		}
		v, err := col.Parse(raw)
		if err != nil {
			errs = append(errs, problem.MemberError{Member: member, Problem: err.Error()})
			continue
		}
		q.Filters = append(q.Filters, Filter{Column: col.Name, Value: v})
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return q, nil
}

package events

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"records/internal/engine"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/wire"
)

// The reads this package serves — the log, a record's history, the stream —
// and those of package webhooks take their parameters as a record list
// does (docs/api.md, Requests): from the JSON body, read and parsed as
// every body is (engine.Service.ReadBody, engine.ParseBody: 415, 413,
// invalid_json; an empty body is {}), and from the query string, the body
// winning where both give one. Unknown names are refused with the closest
// valid one, and every problem is reported at once.

const paramSince = "since"

// The parameters of each read.
var (
	pageParams   = []string{query.ParamLimit, query.ParamCursor}
	logParams    = []string{query.ParamLimit, query.ParamCursor, query.ParamFilter, paramSince}
	streamParams = []string{query.ParamCursor, query.ParamFilter}
)

// readRequest reads the parameters of a read that takes the names allowed
// (query.ReadParams). Problems with the body's media type, size or syntax
// answer at once; problems with the parameters are noted in the Params
// (see Params.Err).
func readRequest(c *gin.Context, bodies *engine.Service, allowed []string) (*query.Params, error) {
	body, err := bodies.ReadBody(c)
	if err != nil {
		return nil, err
	}
	members, err := engine.ParseBody(body)
	if err != nil {
		return nil, err
	}
	var q url.Values
	if raw := c.Request.URL.RawQuery; raw != "" {
		if q, err = url.ParseQuery(raw); err != nil {
			return nil, problem.New(problem.InvalidRequest, "the query string is malformed: %v", err)
		}
	}
	return query.ReadParams(members, q, allowed), nil
}

// PageParams reads the parameters of a page that takes limit and cursor
// only (package webhooks' lists), from the body (read by bodies) and the
// query string: the limit, and the cursor as sent ("" when not given).
func PageParams(c *gin.Context, bodies *engine.Service) (limit int, cursor string, err error) {
	r, err := readRequest(c, bodies, pageParams)
	if err != nil {
		return 0, "", err
	}
	limit, cursor = r.Limit(), r.Cursor()
	return limit, cursor, r.Err()
}

// filter reads the log's filter and, when the read takes it, since. A
// body's filter is an object {"type": T}, {"type": {"eq": T}} or
// {"type": {"in": [T, …]}}; a query string's is filter[type]=T,
// filter[type][eq]=T or filter[type][in]=T,… (split at commas).
func (l *Log) filter(r *query.Params) Filter {
	var f Filter
	if v, ok := r.Values[query.ParamFilter]; ok {
		f.Types = l.bodyFilter(r, v.Raw)
	} else {
		f.Types = l.queryFilter(r)
	}
	if v, ok := r.Values[paramSince]; ok {
		// As a Date/Time member is read: RFC 3339, years 1–9999 in UTC.
		if t, err := wire.DateTime(v.Raw); err != nil {
			r.Fail(paramSince, "%v", err)
		} else {
			f.Since = max(1, t.UnixMicro())
		}
	}
	return f
}

// filterOperators are the operators the log's filter takes on type.
var filterOperators = []string{string(query.Eq), string(query.In)}

// bodyFilter reads a body's filter object: the types it names.
func (l *Log) bodyFilter(r *query.Params, raw []byte) []string {
	const at = query.ParamFilter
	members, ok := object(r, at, raw, `must be an object: {"type": "returns.created"} or {"type": {"in": ["returns.created", …]}}`)
	if !ok {
		return nil
	}
	var types []string
	for _, m := range members {
		if m.Name != "type" {
			r.Unknown(at+"."+m.Name, "member", m.Name, []string{"type"})
			continue
		}
		types = l.typeFilter(r, at+".type", m.Value)
	}
	return types
}

// object splits the object at into its members; ok is false, and the
// problem noted, when it is not an object (notObject says so) or names a
// member twice (refused, as in a body).
func object(r *query.Params, at string, raw []byte, notObject string) (members []wire.Member, ok bool) {
	if wire.Kind(raw) != "an object" {
		r.Fail(at, "%s", notObject)
		return nil, false
	}
	members, err := wire.ParseObject(raw)
	var dup *wire.DuplicateError
	switch {
	case errors.As(err, &dup):
		r.Fail(at+"."+dup.Name, "appears more than once")
		return nil, false
	case err != nil: // the body parsed, so its members do
		r.Fail(at, "%s", notObject)
		return nil, false
	}
	return members, true
}

// typeFilter reads the filter of type at: a type, or an object of one
// operator, eq (a type) or in (an array of types).
func (l *Log) typeFilter(r *query.Params, at string, raw []byte) []string {
	if wire.Kind(raw) != "an object" {
		return l.types1(r, at, raw)
	}
	const one = "must hold one operator, eq or in"
	ops, ok := object(r, at, raw, one)
	if !ok {
		return nil
	}
	if len(ops) != 1 {
		r.Fail(at, one)
		return nil
	}
	op := ops[0]
	switch query.Op(op.Name) {
	case query.Eq:
		return l.types1(r, at+".eq", op.Value)
	case query.In:
		items, err := wire.ParseArray(op.Value)
		if err != nil || len(items) == 0 {
			r.Fail(at+".in", "must be an array of 1 or more event types")
			return nil
		}
		var types []string
		for i, item := range items {
			types = append(types, l.types1(r, fmt.Sprintf("%s.in[%d]", at, i), item)...)
		}
		return types
	}
	r.Unknown(at+"."+op.Name, "operator", op.Name, filterOperators)
	return nil
}

// types1 reads one event type at.
func (l *Log) types1(r *query.Params, at string, raw []byte) []string {
	t, err := wire.Text(raw)
	if err != nil {
		r.Fail(at, "must be an event type (e.g. customers.created)")
		return nil
	}
	if _, found := slices.BinarySearch(l.types, t); !found {
		r.Fail(at, "%q is not an event type (e.g. customers.created)", t)
		return nil
	}
	return []string{t}
}

// queryFilter reads a query string's filter[type], filter[type][eq] or
// filter[type][in]: the types they name.
func (l *Log) queryFilter(r *query.Params) []string {
	var types []string
	given := ""
	for _, inner := range slices.Sorted(maps.Keys(r.Filters)) {
		member := query.ParamFilter + "." + strings.ReplaceAll(inner, "][", ".")
		var list []string
		switch inner {
		case "type", "type][eq":
			t, _ := wire.Text(r.Filters[inner].Raw)
			list = []string{t}
		case "type][in":
			t, _ := wire.Text(r.Filters[inner].Raw)
			list = strings.Split(t, ",")
		default:
			name, _, _ := strings.Cut(inner, "]")
			if name == "type" {
				op := strings.TrimPrefix(inner, "type][")
				r.Unknown(member, "operator", op, filterOperators)
			} else {
				r.Unknown(member, "member", name, []string{"type"})
			}
			continue
		}
		if given != "" {
			r.Fail(member, "give the types once: filter[type] or filter[type][in]")
			continue
		}
		given = inner
		for _, t := range list {
			if _, found := slices.BinarySearch(l.types, t); !found {
				r.Fail(member, "%q is not an event type (e.g. customers.created)", t)
				continue
			}
			types = append(types, t)
		}
	}
	return types
}

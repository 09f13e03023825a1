package events

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"records/internal/engine"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/suggest"
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

// param is a parameter's raw JSON; a query string's value is a JSON string.
type param struct {
	raw  []byte
	text bool // from the query string
}

// request is a read's parameters, collecting the problems found in them.
type request struct {
	values map[string]param
	// filters are the query string's filter[…] parameters by the text
	// within the outer brackets ("type", "type][in"); a body's filter
	// (values["filter"]) wins over all of them.
	filters map[string]param
	errs    []problem.MemberError
}

func (r *request) fail(member, format string, args ...any) {
	r.errs = append(r.errs, problem.MemberError{Member: member, Problem: fmt.Sprintf(format, args...)})
}

// err is the problems found, every one, or nil.
func (r *request) err() error {
	if len(r.errs) == 0 {
		return nil
	}
	return problem.Members(r.errs)
}

// readRequest reads the parameters of a read that takes the names allowed.
// Problems with the body's media type, size or syntax answer at once;
// problems with the parameters are collected in the request (see err).
func readRequest(c *gin.Context, bodies *engine.Service, allowed []string) (*request, error) {
	body, err := bodies.ReadBody(c)
	if err != nil {
		return nil, err
	}
	members, err := engine.ParseBody(body)
	if err != nil {
		return nil, err
	}
	r := &request{values: map[string]param{}, filters: map[string]param{}}
	if raw := c.Request.URL.RawQuery; raw != "" {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return nil, problem.New(problem.InvalidRequest, "the query string is malformed: %v", err)
		}
		for _, name := range slices.Sorted(maps.Keys(q)) {
			vs := q[name]
			inner, filter := strings.CutPrefix(name, query.ParamFilter+"[")
			filter = filter && strings.HasSuffix(inner, "]") && slices.Contains(allowed, query.ParamFilter)
			member := name
			if filter {
				inner = strings.TrimSuffix(inner, "]")
				member = query.ParamFilter + "." + strings.ReplaceAll(inner, "][", ".")
			}
			switch {
			case len(vs) > 1:
				// As a member twice in a body: picking one would be a guess.
				r.fail(member, "is given more than once")
			case !utf8.ValidString(vs[0]):
				r.fail(member, "must be valid UTF-8 (percent-encode the text's UTF-8 bytes)")
			case filter:
				r.filters[inner] = param{wire.AppendString(nil, vs[0]), true}
			case name != query.ParamFilter && slices.Contains(allowed, name):
				r.values[name] = param{wire.AppendString(nil, vs[0]), true}
			default:
				r.unknown(name, "query parameter", name, allowed)
			}
		}
	}
	for _, m := range members {
		if !slices.Contains(allowed, m.Name) {
			r.unknown(m.Name, "member", m.Name, allowed)
			continue
		}
		r.values[m.Name] = param{m.Value, false} // the body wins
	}
	return r, nil
}

// unknown notes that member names something unknown (what: a member, an
// operator…), with the closest valid name — while the problem lists more
// members (past that, the search for a close name is spared).
func (r *request) unknown(member, what, name string, valid []string) {
	if !problem.Full(r.errs) {
		r.fail(member, "unknown %s%s", what, hint(name, valid))
	}
}

// hint is "; did you mean X?" for a close valid name, else the valid names.
func hint(name string, valid []string) string {
	if best, ok := suggest.Closest(name, valid); ok {
		return "; did you mean " + strconv.Quote(best) + "?"
	}
	return " (this route takes " + strings.Join(valid, ", ") + ")"
}

// limit is the page's limit: 1 to spec.MaxLimit, spec.DefaultLimit when
// not given.
func (r *request) limit() int {
	v, ok := r.values[query.ParamLimit]
	if !ok {
		return spec.DefaultLimit
	}
	n, err := wire.Int64(v.raw)
	if err != nil || n < 1 || n > spec.MaxLimit {
		r.fail(query.ParamLimit, "must be a whole number from 1 to %d", spec.MaxLimit)
		return spec.DefaultLimit
	}
	return int(n)
}

// cursor is the cursor as sent, "" when not given; given, it may not be
// empty (as a record list's may not).
func (r *request) cursor() string {
	v, ok := r.values[query.ParamCursor]
	if !ok {
		return ""
	}
	s, err := wire.Text(v.raw)
	if err != nil || s == "" {
		r.fail(query.ParamCursor, "must be a cursor a page answered in paging.next_cursor")
		return ""
	}
	return s
}

// PageParams reads the parameters of a page that takes limit and cursor
// only (package webhooks' lists), from the body (read by bodies) and the
// query string: the limit, and the cursor as sent ("" when not given).
func PageParams(c *gin.Context, bodies *engine.Service) (limit int, cursor string, err error) {
	r, err := readRequest(c, bodies, pageParams)
	if err != nil {
		return 0, "", err
	}
	limit, cursor = r.limit(), r.cursor()
	return limit, cursor, r.err()
}

// filter reads the log's filter and, when the read takes it, since. A
// body's filter is an object {"type": T}, {"type": {"eq": T}} or
// {"type": {"in": [T, …]}}; a query string's is filter[type]=T,
// filter[type][eq]=T or filter[type][in]=T,… (split at commas).
func (l *Log) filter(r *request) Filter {
	var f Filter
	if v, ok := r.values[query.ParamFilter]; ok {
		f.Types = l.bodyFilter(r, v.raw)
	} else {
		f.Types = l.queryFilter(r)
	}
	if v, ok := r.values[paramSince]; ok {
		// As a Date/Time member is read: RFC 3339, years 1–9999 in UTC.
		if t, err := wire.DateTime(v.raw); err != nil {
			r.fail(paramSince, "%v", err)
		} else {
			f.Since = max(1, t.UnixMicro())
		}
	}
	return f
}

// filterOperators are the operators the log's filter takes on type.
var filterOperators = []string{string(query.Eq), string(query.In)}

// bodyFilter reads a body's filter object: the types it names.
func (l *Log) bodyFilter(r *request, raw []byte) []string {
	const at = query.ParamFilter
	members, ok := r.object(at, raw, `must be an object: {"type": "returns.created"} or {"type": {"in": ["returns.created", …]}}`)
	if !ok {
		return nil
	}
	var types []string
	for _, m := range members {
		if m.Name != "type" {
			r.unknown(at+"."+m.Name, "member", m.Name, []string{"type"})
			continue
		}
		types = l.typeFilter(r, at+".type", m.Value)
	}
	return types
}

// object splits the object at into its members; ok is false, and the
// problem noted, when it is not an object (notObject says so) or names a
// member twice (refused, as in a body).
func (r *request) object(at string, raw []byte, notObject string) (members []wire.Member, ok bool) {
	if wire.Kind(raw) != "an object" {
		r.fail(at, "%s", notObject)
		return nil, false
	}
	members, err := wire.ParseObject(raw)
	var dup *wire.DuplicateError
	switch {
	case errors.As(err, &dup):
		r.fail(at+"."+dup.Name, "appears more than once")
		return nil, false
	case err != nil: // the body parsed, so its members do
		r.fail(at, "%s", notObject)
		return nil, false
	}
	return members, true
}

// typeFilter reads the filter of type at: a type, or an object of one
// operator, eq (a type) or in (an array of types).
func (l *Log) typeFilter(r *request, at string, raw []byte) []string {
	if wire.Kind(raw) != "an object" {
		return l.types1(r, at, raw)
	}
	const one = "must hold one operator, eq or in"
	ops, ok := r.object(at, raw, one)
	if !ok {
		return nil
	}
	if len(ops) != 1 {
		r.fail(at, one)
		return nil
	}
	op := ops[0]
	switch query.Op(op.Name) {
	case query.Eq:
		return l.types1(r, at+".eq", op.Value)
	case query.In:
		items, err := wire.ParseArray(op.Value)
		if err != nil || len(items) == 0 {
			r.fail(at+".in", "must be an array of 1 or more event types")
			return nil
		}
		var types []string
		for i, item := range items {
			types = append(types, l.types1(r, fmt.Sprintf("%s.in[%d]", at, i), item)...)
		}
		return types
	}
	r.unknown(at+"."+op.Name, "operator", op.Name, filterOperators)
	return nil
}

// types1 reads one event type at.
func (l *Log) types1(r *request, at string, raw []byte) []string {
	t, err := wire.Text(raw)
	if err != nil {
		r.fail(at, "must be an event type (e.g. customers.created)")
		return nil
	}
	if _, found := slices.BinarySearch(l.types, t); !found {
		r.fail(at, "%q is not an event type (e.g. customers.created)", t)
		return nil
	}
	return []string{t}
}

// queryFilter reads a query string's filter[type], filter[type][eq] or
// filter[type][in]: the types they name.
func (l *Log) queryFilter(r *request) []string {
	var types []string
	given := ""
	for _, inner := range slices.Sorted(maps.Keys(r.filters)) {
		member := query.ParamFilter + "." + strings.ReplaceAll(inner, "][", ".")
		var list []string
		switch inner {
		case "type", "type][eq":
			t, _ := wire.Text(r.filters[inner].raw)
			list = []string{t}
		case "type][in":
			t, _ := wire.Text(r.filters[inner].raw)
			list = strings.Split(t, ",")
		default:
			name, _, _ := strings.Cut(inner, "]")
			if name == "type" {
				op := strings.TrimPrefix(inner, "type][")
				r.unknown(member, "operator", op, filterOperators)
			} else {
				r.unknown(member, "member", name, []string{"type"})
			}
			continue
		}
		if given != "" {
			r.fail(member, "give the types once: filter[type] or filter[type][in]")
			continue
		}
		given = inner
		for _, t := range list {
			if _, found := slices.BinarySearch(l.types, t); !found {
				r.fail(member, "%q is not an event type (e.g. customers.created)", t)
				continue
			}
			types = append(types, t)
		}
	}
	return types
}

package query

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// Count says whether and how a list counts the records its filter matches.
type Count string

// The ways of counting.
const (
	NoCount   Count = ""
	Exact     Count = "exact"
	Estimated Count = "estimated"
)

// List is what a resource offers a list: the members it may filter and
// order by, the members it answers (for fields), the related records it
// can expand, and top-level members an operation takes as exact filters.
type List struct {
	Columns Columns
	Members []string
	Edges   []string
	Extra   []string
}

// Request is a parsed list request.
type Request struct {
	Filter *Filter
	Keys   []Key
	Limit  int
	Offset int
	Cursor string // as sent; see Cursors.Decode
	Count  Count
	Fields []string // nil: every member
	Expand []string
}

// The list parameters a body or query string may carry.
const (
	ParamLimit     = "limit"
	ParamOffset    = "offset"
	ParamDirection = "order_direction"
	ParamOrderBy   = "order_by"
	ParamFilter    = "filter"
	ParamCursor    = "cursor"
	ParamCount     = "count"
	ParamFields    = "fields"
	ParamExpand    = "expand"
)

// Params are the list parameters, in the order messages list them.
var Params = []string{ParamLimit, ParamOffset, ParamDirection, ParamOrderBy, ParamFilter, ParamCursor, ParamCount, ParamFields, ParamExpand}

// value is a parameter's raw JSON and whether it came from a query string.
type value struct {
	raw  []byte
	text bool
}

// ParseRequest reads the list parameters from the body's members and the
// query string; the body wins where both give one. Every problem is
// reported at once, naming its member.
func ParseRequest(members []wire.Member, query url.Values, l *List) (*Request, error) {
	values := map[string]value{}
	filters := map[string]value{} // query-string filters: "status" or "status][ne"
	var body []byte               // the body's filter object
	var errs []problem.MemberError
	valid := append(slices.Clone(Params), l.Extra...)
	for name, vs := range query {
		// The parameter as a problem names it (only a problem needs it).
		member := func() string {
			if strings.HasPrefix(name, "filter[") && strings.HasSuffix(name, "]") {
				return filterMember(name[len("filter[") : len(name)-1])
			}
			return name
		}
		if len(vs) > 1 {
			// As a member twice in a body: picking one would be a guess.
			errs = append(errs, problem.MemberError{Member: member(), Problem: "is given more than once"})
			continue
		}
		if v := vs[len(vs)-1]; !utf8.ValidString(v) {
			errs = append(errs, problem.MemberError{Member: member(), Problem: "must be valid UTF-8 (percent-encode the text's UTF-8 bytes)"})
			continue
		}
		raw := wire.AppendString(nil, vs[len(vs)-1])
		switch {
		case strings.HasPrefix(name, "filter[") && strings.HasSuffix(name, "]"):
			filters[name[len("filter["):len(name)-1]] = value{raw, true}
		case slices.Contains(valid, name) && name != ParamFilter:
			values[name] = value{raw, true}
		case name == ParamFilter:
			errs = append(errs, problem.MemberError{Member: name, Problem: "names its member in a query string: filter[member]=value or filter[member][operator]=value"})
		default:
			if !problem.Full(errs) {
				errs = append(errs, problem.MemberError{Member: name, Problem: "unknown query parameter" + didYouMean(name, valid)})
			}
		}
	}
	for _, m := range members {
		switch {
		case m.Name == ParamFilter:
			body = m.Value
		case slices.Contains(valid, m.Name):
			values[m.Name] = value{m.Value, false}
		default:
			if !problem.Full(errs) {
				errs = append(errs, problem.MemberError{Member: m.Name, Problem: "unknown member" + didYouMean(m.Name, valid)})
			}
		}
	}
	r := &Request{Limit: spec.DefaultLimit}
	fail := func(member, format string, args ...any) {
		errs = append(errs, problem.MemberError{Member: member, Problem: fmt.Sprintf(format, args...)})
	}
	if v, ok := values[ParamLimit]; ok {
		n, err := wire.Int64(v.raw)
		if err != nil || n < 1 || n > spec.MaxLimit {
			fail(ParamLimit, "must be a whole number from 1 to %d", spec.MaxLimit)
		}
		r.Limit = int(n)
	}
	if v, ok := values[ParamOffset]; ok {
		n, err := wire.Int64(v.raw)
		if err != nil || n < 0 || n > 1<<31 {
			fail(ParamOffset, "must be a whole number, 0 or more")
		}
		r.Offset = int(n)
	}
	desc := false
	if v, ok := values[ParamDirection]; ok {
		s, _ := wire.Text(v.raw)
		switch strings.ToLower(s) {
		case "asc":
		case "desc":
			desc = true
		default:
			fail(ParamDirection, `must be "asc" or "desc" (any case)`)
		}
	}
	order := ""
	if v, ok := values[ParamOrderBy]; ok {
		s, err := wire.Text(v.raw)
		if err != nil {
			fail(ParamOrderBy, "must be a member name, or several separated by commas")
		}
		order = s
	}
	keys, err := ParseOrder(order, desc, l.Columns)
	if err != nil {
		fail(ParamOrderBy, "%v", err)
	}
	r.Keys = keys
	if v, ok := values[ParamCursor]; ok {
		s, err := wire.Text(v.raw)
		if err != nil || s == "" {
			fail(ParamCursor, "must be a cursor a list answered in paging.next_cursor")
		}
		r.Cursor = s
		if r.Offset > 0 {
			fail(ParamCursor, "cannot be used with an offset: a cursor says where the page starts")
		}
	}
	if v, ok := values[ParamCount]; ok {
		s, _ := wire.Text(v.raw)
		switch Count(s) {
		case Exact, Estimated:
			r.Count = Count(s)
		default:
			fail(ParamCount, `must be "exact" or "estimated"`)
		}
	}
	if v, ok := values[ParamFields]; ok {
		var e []problem.MemberError
		r.Fields, e = Names(v.raw, v.text, ParamFields, l.Members)
		errs = append(errs, e...)
	}
	if v, ok := values[ParamExpand]; ok {
		var e []problem.MemberError
		r.Expand, e = Names(v.raw, v.text, ParamExpand, l.Edges)
		errs = append(errs, e...)
	}
	r.Filter, errs = parseFilters(body, filters, values, l, errs)
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return r, nil
}

// parseFilters joins the body's filter (or, when the body has none, the
// query string's filter[…] parameters) and the operation's exact-filter
// members into one filter.
func parseFilters(body []byte, query map[string]value, values map[string]value, l *List, errs []problem.MemberError) (*Filter, []problem.MemberError) {
	p := &filterParser{cols: l.Columns}
	var kids []*Filter
	if body != nil {
		if f := p.object(jsonNode(body), ParamFilter, 0); f != nil {
			kids = append(kids, f)
		}
	}
	// The body wins where both give one (as for every parameter): the
	// query string's filter[…] count only when the body has no filter.
	if body == nil && len(query) > 0 {
		root := &queryNode{}
		for key, v := range query {
			path, ok := queryPath(key)
			if !ok {
				p.fail(filterMember(key), "write filter[member], filter[member][operator] or, to nest, filter[or][0][member]")
				continue
			}
			root.put(path, v.raw)
		}
		if len(root.kids) > 0 {
			if f := p.object(root, ParamFilter, 0); f != nil {
				kids = append(kids, f)
			}
		}
	}
	for _, name := range l.Extra {
		if v, ok := values[name]; ok {
			if col := p.column(name, name); col != nil {
				if f := p.leaf(col, Eq, v.raw, nil, name); f != nil {
					kids = append(kids, f)
				}
			}
		}
	}
	errs = append(errs, p.errs...)
	if len(kids) == 0 {
		return nil, errs
	}
	return all(kids), errs
}

// Names reads fields or expand (param): a JSON array of names, or one
// string of names separated by commas (always so in a query string: text),
// each among valid.
func Names(raw []byte, text bool, param string, valid []string) ([]string, []problem.MemberError) {
	bad := []problem.MemberError{{Member: param, Problem: "must be an array of names or a string of names separated by commas"}}
	var list []string
	if !text && wire.Kind(raw) == "an array" {
		items, err := wire.ParseArray(raw)
		if err != nil {
			return nil, bad
		}
		for _, item := range items {
			s, err := wire.Text(item)
			if err != nil {
				return nil, bad
			}
			list = append(list, s)
		}
	} else {
		s, err := wire.Text(raw)
		if err != nil {
			return nil, bad
		}
		list = strings.Split(s, ",")
	}
	out := []string{}
	var errs []problem.MemberError
	for _, name := range list {
		name = strings.TrimSpace(name)
		switch {
		case problem.Full(errs):
			return out, errs
		case name == "":
		case !slices.Contains(valid, name) && len(valid) == 0:
			errs = append(errs, problem.MemberError{Member: param, Problem: fmt.Sprintf("%q: this resource has nothing to %s", name, param)})
		case !slices.Contains(valid, name):
			what := "no member %q"
			if param == ParamExpand {
				what = "nothing to expand is named %q"
			}
			errs = append(errs, problem.MemberError{Member: param, Problem: fmt.Sprintf(what+"%s; valid: %s", name, didYouMean(name, valid), strings.Join(valid, ", "))})
		case !slices.Contains(out, name):
			out = append(out, name)
		}
	}
	return out, errs
}

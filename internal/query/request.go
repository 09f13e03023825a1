package query

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/suggest"
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
	// Search is the resource's full-text search, nil when it has none
	// (or none the caller may use); NoSearch then says why q is refused.
	Search   *Search
	NoSearch string
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
	// Match is q, nil when absent; Filter includes it, Unsearched is
	// Filter without it.
	Match      *Match
	Unsearched *Filter
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

// ListParams are the list parameters, in the order messages list them.
var ListParams = []string{ParamLimit, ParamOffset, ParamDirection, ParamOrderBy, ParamFilter, ParamQ, ParamCursor, ParamCount, ParamFields, ParamExpand}

// ParseRequest reads the list parameters from the body's members and the
// query string; the body wins where both give one. Every problem is
// reported at once, naming its member.
func ParseRequest(members []wire.Member, query url.Values, l *List) (*Request, error) {
	p := ReadParams(members, query, append(slices.Clone(ListParams), l.Extra...))
	values, fail := p.Values, p.Fail
	r := &Request{Limit: p.Limit()}
	if v, ok := values[ParamOffset]; ok {
		n, err := wire.Int64(v.Raw)
		if err != nil || n < 0 || n > spec.MaxOffset {
			fail(ParamOffset, "must be a whole number from 0 to %d (a cursor goes further)", spec.MaxOffset)
		}
		r.Offset = int(n)
	}
	desc := false
	if v, ok := values[ParamDirection]; ok {
		s, _ := wire.Text(v.Raw)
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
		s, err := wire.Text(v.Raw)
		if err != nil {
			fail(ParamOrderBy, "must be a member name, or several separated by commas")
		}
		order = s
	}
	r.Match = parseQ(p, l)
	cols := l.Columns
	if r.Match != nil {
		cols = withRank(cols)
		if strings.TrimSpace(order) == "" {
			order = "-" + RankColumn.Member // best match first
		}
	}
	keys, err := ParseOrder(order, desc, cols)
	switch {
	case err != nil:
		fail(ParamOrderBy, "%v", err)
	case slices.ContainsFunc(keys, func(k Key) bool { return k.Col == RankColumn }) &&
		(len(keys) != 2 || keys[0].Col != RankColumn || keys[0].Desc != keys[1].Desc):
		fail(ParamOrderBy, "orders by _rank alone: -_rank (best match first) or _rank (last first), the id in the same direction within a tier")
	}
	r.Keys = keys
	if r.Cursor = p.Cursor(); r.Cursor != "" && r.Offset > 0 {
		fail(ParamCursor, "cannot be used with an offset: a cursor says where the page starts")
	}
	if v, ok := values[ParamCount]; ok {
		s, _ := wire.Text(v.Raw)
		switch Count(s) {
		case Exact, Estimated:
			r.Count = Count(s)
		default:
			fail(ParamCount, `must be "exact" or "estimated"`)
		}
	}
	if v, ok := values[ParamFields]; ok {
		var e []problem.MemberError
		r.Fields, e = Names(v.Raw, v.Text, ParamFields, l.Members)
		p.Errs = append(p.Errs, e...)
	}
	if v, ok := values[ParamExpand]; ok {
		var e []problem.MemberError
		r.Expand, e = Names(v.Raw, v.Text, ParamExpand, l.Edges)
		p.Errs = append(p.Errs, e...)
	}
	r.Filter = parseFilters(p, l)
	r.Unsearched = r.Filter
	if r.Match != nil {
		r.Filter = And2(r.Filter, &Filter{Op: SearchOp, Value: r.Match, Search: l.Search})
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// parseFilters joins the body's filter (or, when the body has none, the
// query string's filter[…] parameters) and the operation's exact-filter
// members into one filter, noting its problems in params.
func parseFilters(params *Params, l *List) *Filter {
	p := &filterParser{cols: l.Columns}
	var kids []*Filter
	body, inBody := params.Values[ParamFilter]
	if inBody {
		if f := p.object(jsonNode(body.Raw), ParamFilter, 0); f != nil {
			kids = append(kids, f)
		}
	}
	// The body wins where both give one (as for every parameter): the
	// query string's filter[…] count only when the body has no filter.
	if !inBody && len(params.Filters) > 0 {
		root := &queryNode{}
		for key, v := range params.Filters {
			path, ok := queryPath(key)
			if !ok {
				p.fail(filterMember(key), "write filter[member], filter[member][operator] or, to nest, filter[or][0][member]")
				continue
			}
			root.put(path, v.Raw)
		}
		if len(root.kids) > 0 {
			if f := p.object(root, ParamFilter, 0); f != nil {
				kids = append(kids, f)
			}
		}
	}
	for _, name := range l.Extra {
		if v, ok := params.Values[name]; ok {
			if col := p.column(name, name); col != nil {
				if f := p.leaf(col, Eq, v.Raw, nil, name); f != nil {
					kids = append(kids, f)
				}
			}
		}
	}
	params.Errs = append(params.Errs, p.errs...)
	if len(kids) == 0 {
		return nil
	}
	return all(kids)
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
			errs = append(errs, problem.MemberError{Member: param, Problem: fmt.Sprintf(what+"%s; valid: %s", name, suggest.Hint(name, valid), strings.Join(valid, ", "))})
		case !slices.Contains(out, name):
			out = append(out, name)
		}
	}
	return out, errs
}

// parseQ reads q, nil when absent, noting its problems in p.
func parseQ(p *Params, l *List) *Match {
	v, ok := p.Values[ParamQ]
	if !ok {
		return nil
	}
	text, err := wire.Text(v.Raw)
	if err != nil {
		p.Fail(ParamQ, "must be a string of words to search for")
		return nil
	}
	if l.Search == nil {
		why := l.NoSearch
		if why == "" {
			why = "this resource has no searchable member"
		}
		p.Fail(ParamQ, "%s", why)
		return nil
	}
	m, err := ParseQ(text)
	if err != nil {
		p.Fail(ParamQ, "%v", err)
		return nil
	}
	return m
}

// withRank is cols and the rank, which a search may be ordered by.
func withRank(cols Columns) Columns {
	out := make(Columns, len(cols)+1)
	for k, c := range cols {
		out[k] = c
	}
	out[RankColumn.Member] = RankColumn
	return out
}

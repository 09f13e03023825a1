package query

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/suggest"
	"records/internal/wire"
)

// Value is a parameter's raw JSON; a query string's value is a JSON string.
type Value struct {
	Raw  []byte
	Text bool // from the query string
}

// Params are a read's parameters as given — every read's: a list's, the
// event log's, a page of webhooks — from its JSON body and its query
// string, the body winning where both give one. The problems found in them
// are collected in Errs, each naming its member, so that every one is
// reported at once.
type Params struct {
	// Values are the parameters by name; a body's filter object is
	// Values[ParamFilter].
	Values map[string]Value
	// Filters are the query string's filter[…] parameters, by the text
	// within the outer brackets ("status", "status][ne"); a body's filter
	// wins over all of them.
	Filters map[string]Value
	Errs    []problem.MemberError
}

// ReadParams reads the parameters of a read that takes the names valid
// (ParamFilter among them when it takes a filter): from the body's members
// and the query string. A name it does not take is refused with the
// closest valid one, and so is a parameter given twice (a guess, as a
// member twice in a body would be) or not valid UTF-8.
func ReadParams(members []wire.Member, query url.Values, valid []string) *Params {
	p := &Params{Values: make(map[string]Value, len(members)+len(query))}
	filters := slices.Contains(valid, ParamFilter)
	// Sorted, so that problems come in the same order every time.
	for _, name := range slices.Sorted(maps.Keys(query)) {
		vs := query[name]
		inner, isFilter := strings.CutPrefix(name, ParamFilter+"[")
		isFilter = isFilter && filters && strings.HasSuffix(inner, "]")
		inner = strings.TrimSuffix(inner, "]")
		// The parameter as a problem names it (only a problem needs it).
		member := func() string {
			if isFilter {
				return filterMember(inner)
			}
			return name
		}
		switch {
		case len(vs) > 1:
			p.Fail(member(), "is given more than once")
		case !utf8.ValidString(vs[0]):
			p.Fail(member(), "must be valid UTF-8 (percent-encode the text's UTF-8 bytes)")
		case isFilter:
			if p.Filters == nil {
				p.Filters = map[string]Value{}
			}
			p.Filters[inner] = Value{wire.AppendString(nil, vs[0]), true}
		case name == ParamFilter && filters:
			p.Fail(name, "names its member in a query string: filter[member]=value or filter[member][operator]=value")
		case slices.Contains(valid, name):
			p.Values[name] = Value{wire.AppendString(nil, vs[0]), true}
		default:
			p.Unknown(name, "query parameter", name, valid)
		}
	}
	for _, m := range members {
		if !slices.Contains(valid, m.Name) {
			p.Unknown(m.Name, "member", m.Name, valid)
			continue
		}
		p.Values[m.Name] = Value{m.Value, false}
	}
	return p
}

// Fail notes a problem of member.
func (p *Params) Fail(member, format string, args ...any) {
	p.Errs = append(p.Errs, problem.MemberError{Member: member, Problem: fmt.Sprintf(format, args...)})
}

// Unknown notes that member names something unknown (what: a member, a
// query parameter, an operator), with the closest valid name — while the
// problem lists more members (past that, the search is spared).
func (p *Params) Unknown(member, what, name string, valid []string) {
	if !problem.Full(p.Errs) {
		p.Fail(member, "unknown %s%s", what, hint(name, valid))
	}
}

// Err is the problems noted, every one, or nil.
func (p *Params) Err() error {
	if len(p.Errs) == 0 {
		return nil
	}
	return problem.Members(p.Errs)
}

// Limit reads limit: 1 to spec.MaxLimit, spec.DefaultLimit when absent.
func (p *Params) Limit() int {
	v, ok := p.Values[ParamLimit]
	if !ok {
		return spec.DefaultLimit
	}
	n, err := wire.Int64(v.Raw)
	if err != nil || n < 1 || n > spec.MaxLimit {
		p.Fail(ParamLimit, "must be a whole number from 1 to %d", spec.MaxLimit)
		return spec.DefaultLimit
	}
	return int(n)
}

// Cursor reads cursor as sent, "" when absent; given, it may not be empty.
func (p *Params) Cursor() string {
	v, ok := p.Values[ParamCursor]
	if !ok {
		return ""
	}
	s, err := wire.Text(v.Raw)
	if err != nil || s == "" {
		p.Fail(ParamCursor, "must be a cursor a page answered in paging.next_cursor")
		return ""
	}
	return s
}

// hint is "; did you mean X?" for a close valid name, else the valid names.
func hint(name string, valid []string) string {
	if s := suggest.Hint(name, valid); s != "" {
		return s
	}
	return "; valid: " + strings.Join(valid, ", ")
}

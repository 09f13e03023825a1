package query

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"records/internal/problem"
	"records/internal/suggest"
)

// Op is a filter operator, or a connective.
type Op string

// The operators and connectives of a filter.
const (
	Eq       Op = "eq"
	Ne       Op = "ne"
	Gt       Op = "gt"
	Gte      Op = "gte"
	Lt       Op = "lt"
	Lte      Op = "lte"
	In       Op = "in"
	Nin      Op = "nin"
	Contains Op = "contains"
	Prefix   Op = "prefix"
	IsNull   Op = "is_null"
	And      Op = "and"
	Or       Op = "or"
	Not      Op = "not"
	// SearchOp is a full-text search (q): Value is its *Match, Search the
	// resource's search.
	SearchOp Op = "match"
)

// operators are the leaf operators, in the order messages list them.
var operators = []string{"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "prefix", "is_null"}

// Bounds of a filter, so that no request can make a statement of unbounded
// size, nor one with more parameters than a database takes (SQLite 32,766,
// PostgreSQL 65,535: each value of an in or nin list is one, and a list is
// padded to a power of two).
const (
	MaxDepth    = 8     // nested and, or and not
	MaxTerms    = 100   // operators in one filter
	MaxInItems  = 1000  // values of one in or nin
	MaxInValues = 10000 // values of all the in and nin lists of one filter
)

// Filter is a parsed filter: a connective over its Kids, or one operator
// on a column. Null is normalized away: eq null is is_null true, ne null is
// is_null false, and a null among the values of in or nin sets Null.
type Filter struct {
	Op     Op
	Col    *Column
	Value  any   // gt, gte, lt, lte, eq, ne, contains, prefix
	Values []any // in, nin: the values that are not null
	Null   bool  // in, nin: the list held null; is_null: the value
	Kids   []*Filter
	Search *Search // match
}

// Columns are the members a resource lets lists filter and order by.
type Columns map[string]*Column

// names are the members, sorted, for messages.
func (cols Columns) names() []string { return slices.Sorted(maps.Keys(cols)) }

// filterParser reads a filter, collecting every problem with its member path.
type filterParser struct {
	cols   Columns
	terms  int
	values int // of the in and nin lists so far
	errs   []problem.MemberError
}

func (p *filterParser) fail(path, format string, args ...any) {
	if !p.full() {
		p.errs = append(p.errs, problem.MemberError{Member: path, Problem: fmt.Sprintf(format, args...)})
	}
}

// full tells whether the parser has found more faults than a problem lists:
// it stops looking for the names the client may have meant.
func (p *filterParser) full() bool { return problem.Full(p.errs) }

// ParseFilter reads a filter object from a JSON body, its members named
// under path (e.g. "filter").
func ParseFilter(raw []byte, path string, cols Columns) (*Filter, []problem.MemberError) {
	p := &filterParser{cols: cols}
	f := p.object(jsonNode(raw), path, 0)
	return f, p.errs
}

// object reads a filter object: members (exact values or operator objects)
// and the connectives and, or and not, all AND-ed.
func (p *filterParser) object(n node, path string, depth int) *Filter {
	members, ok := n.members()
	if !ok {
		if name := repeated(n); name != "" {
			p.fail(path+"."+name, "is given more than once")
		} else if n.text() {
			p.fail(path, "must name a member or and, or, not: filter[member]=value, filter[or][0][member]=value")
		} else {
			p.fail(path, "must be an object of member names to values or operators")
		}
		return nil
	}
	var kids []*Filter
	for _, m := range members {
		at := path + "." + m.name
		switch Op(m.name) {
		case And, Or:
			if depth+1 > MaxDepth {
				p.fail(at, "nests more than %d levels of and, or and not", MaxDepth)
				continue
			}
			items, ok := m.node.items()
			if !ok {
				if n.text() {
					p.fail(at, "must be filters numbered from 0: filter[%s][0][member]=value", m.name)
				} else {
					p.fail(at, "must be an array of filter objects")
				}
				continue
			}
			f := &Filter{Op: Op(m.name)}
			for _, item := range items {
				if kid := p.object(item.node, at+"["+item.name+"]", depth+1); kid != nil {
					f.Kids = append(f.Kids, kid)
				}
			}
			kids = append(kids, f)
		case Not:
			if depth+1 > MaxDepth {
				p.fail(at, "nests more than %d levels of and, or and not", MaxDepth)
				continue
			}
			if kid := p.object(m.node, at, depth+1); kid != nil {
				kids = append(kids, &Filter{Op: Not, Kids: []*Filter{kid}})
			}
		default:
			col := p.column(m.name, at)
			if col == nil {
				continue
			}
			raw, isValue := m.node.value()
			if isValue {
				kids = append(kids, p.leaf(col, Eq, raw, m.node, at))
			}
			ops, ok := m.node.members()
			if !ok {
				if name := repeated(m.node); name != "" {
					p.fail(at+"."+name, "is given more than once")
				} else if !isValue {
					p.fail(at, "must be a value or an object of operators")
				}
				continue
			}
			if len(ops) == 0 {
				p.fail(at, "names no operator; valid: %s", strings.Join(operators, ", "))
			}
			for _, o := range ops {
				if f := p.operator(col, o.name, o.node, at+"."+o.name); f != nil {
					kids = append(kids, f)
				}
			}
		}
	}
	return all(kids)
}

// all is the conjunction of kids (one kid is itself).
func all(kids []*Filter) *Filter {
	if len(kids) == 1 {
		return kids[0]
	}
	return &Filter{Op: And, Kids: kids}
}

// column finds a member to filter by, or says what is wrong.
func (p *filterParser) column(name, path string) *Column {
	col, ok := p.cols[name]
	if !ok {
		if !p.full() {
			p.fail(path, "no member %q to filter by%s", name, suggest.Hint(name, p.cols.names()))
		}
		return nil
	}
	return col
}

// operator reads one operator and its value, n.
func (p *filterParser) operator(col *Column, name string, n node, path string) *Filter {
	if !slices.Contains(operators, name) {
		if !p.full() {
			p.fail(path, "unknown operator %q%s; valid: %s", name, suggest.Hint(name, operators), strings.Join(operators, ", "))
		}
		return nil
	}
	if Op(name) == In || Op(name) == Nin {
		return p.leaf(col, Op(name), nil, n, path)
	}
	raw, ok := scalar(n)
	if !ok {
		if n.text() {
			p.fail(path, "takes one value: filter[member][%s]=value", name)
		} else {
			p.fail(path, "must be a value, not an object")
		}
		return nil
	}
	return p.leaf(col, Op(name), raw, n, path)
}

// And2 is the conjunction of a and b, either of which may be nil.
func And2(a, b *Filter) *Filter {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &Filter{Op: And, Kids: []*Filter{a, b}}
}

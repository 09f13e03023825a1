package query

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/suggest"
	"records/internal/wire"
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

// leaf reads the value of operator op on col: raw, or for in and nin the
// list n holds.
func (p *filterParser) leaf(col *Column, op Op, raw []byte, n node, path string) *Filter {
	p.terms++
	if p.terms == MaxTerms+1 {
		p.fail(path, "a filter holds at most %d operators", MaxTerms)
	}
	if p.terms > MaxTerms {
		return nil
	}
	f := &Filter{Op: op, Col: col}
	switch op {
	case Eq, Ne:
		if wire.IsNull(raw) {
			return &Filter{Op: IsNull, Col: col, Null: op == Eq}
		}
	case Gt, Gte, Lt, Lte:
		if !col.Type.Ordered() {
			p.fail(path, "%s is %s: %s does not apply (use eq, ne, in, nin or is_null)", col.Member, typeName(col.Type), op)
			return nil
		}
	case Contains, Prefix:
		if col.Type != spec.String {
			p.fail(path, "%s is %s: %s applies only to text", col.Member, typeName(col.Type), op)
			return nil
		}
	case IsNull:
		v, err := wire.Bool(raw)
		if err != nil {
			p.fail(path, "%v", err)
			return nil
		}
		f.Null = v
		return f
	case In, Nin:
		return p.list(f, n, path)
	}
	if wire.IsNull(raw) {
		p.fail(path, "must not be null (use is_null)")
		return nil
	}
	parse := col.Parse
	if col.Type == spec.String && op != Eq && op != Ne {
		// A bound or a fragment of text is text, whatever a whole value
		// must be: prefix "" or lt "a/b" of an id, whose values are 1 to
		// 255 characters without "/", are as good as any text member's.
		parse = func(raw []byte) (any, error) { return wire.String(raw) }
	}
	v, err := parse(raw)
	if err != nil {
		p.fail(path, "%v", err)
		return nil
	}
	f.Value = v
	if col.Type == spec.DateTime && wire.FinerThanMicroseconds(raw) {
		return exactTime(f)
	}
	return f
}

// exactTime compares a date-time finer than the microseconds records hold
// as it is, not as it was truncated to v: no record equals it, and the
// bounds gte and lt move up to the next microsecond, where gt and lte
// already fall right. In the last microsecond a member holds the next one
// is past them all: gte matches no record, lt every one not null (moved,
// the bound would be a five-digit year, which SQLite compares as text).
func exactTime(f *Filter) *Filter {
	switch f.Op {
	case Eq:
		return &Filter{Op: In, Col: f.Col}
	case Ne:
		return &Filter{Op: Nin, Col: f.Col}
	case Gte, Lt:
		t := f.Value.(time.Time)
		switch {
		case t.Before(wire.LastInstant):
			f.Value = t.Add(time.Microsecond)
		case f.Op == Gte:
			return &Filter{Op: In, Col: f.Col}
		default:
			return &Filter{Op: IsNull, Col: f.Col, Null: false}
		}
	}
	return f
}

// list reads the values of in or nin: an array (JSON, or in a query
// string filter[member][in][0]=…), or in a query string one value
// separated by commas.
func (p *filterParser) list(f *Filter, n node, path string) *Filter {
	var items [][]byte
	var names []string // each item's index, as the client wrote it
	if entries, ok := n.items(); ok {
		for _, e := range entries {
			raw, ok := scalar(e.node)
			if !ok {
				p.fail(path+"["+e.name+"]", "must be a value")
				return nil
			}
			items, names = append(items, raw), append(names, e.name)
		}
	} else if raw, ok := n.value(); ok && n.text() {
		if _, nested := n.members(); nested {
			p.fail(path, "takes values separated by commas or numbered from 0, not both")
			return nil
		}
		s, err := wire.Text(raw)
		if err != nil {
			// A value the column could not hold (a NUL): refused, not
			// read as no values at all (which nin would match with every
			// record).
			p.fail(path, "%v", err)
			return nil
		}
		if s != "" {
			for i, part := range strings.Split(s, ",") {
				items, names = append(items, wire.AppendString(nil, part)), append(names, strconv.Itoa(i))
			}
		}
	} else {
		if n.text() {
			p.fail(path, "takes values separated by commas, or numbered from 0: filter[member][%s][0]=value", f.Op)
		} else {
			p.fail(path, "must be an array of values")
		}
		return nil
	}
	if len(items) > MaxInItems {
		p.fail(path, "holds at most %d values", MaxInItems)
		return nil
	}
	p.values += len(items)
	if p.values > MaxInValues {
		if p.values-len(items) <= MaxInValues {
			p.fail(path, "takes the filter past %d values in all its in and nin lists", MaxInValues)
		}
		return nil
	}
	ok := true
	for i, item := range items {
		if wire.IsNull(item) {
			f.Null = true
			continue
		}
		v, err := f.Col.Parse(item)
		if err != nil {
			p.fail(path+"["+names[i]+"]", "%v", err)
			ok = false
			continue
		}
		if f.Col.Type == spec.DateTime && wire.FinerThanMicroseconds(item) {
			continue // no record holds it
		}
		f.Values = append(f.Values, v)
	}
	if !ok {
		return nil
	}
	return f
}

// typeName names a type in messages: "a boolean", "a number".
func typeName(t spec.Type) string {
	switch t {
	case spec.Integer:
		return "an integer"
	case spec.DateTime:
		return "a date-time"
	}
	return "a " + string(t)
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

package query

import (
	"strconv"
	"strings"
	"time"

	"records/internal/spec"
	"records/internal/wire"
)

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

package query

import (
	"strings"
	"unicode/utf8"
)

// sqlText accumulates a statement's text and its parameters.
type sqlText struct {
	d    Dialect
	b    strings.Builder
	args []any
}

func (s *sqlText) write(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(p)
	}
}

func (s *sqlText) arg(v any) {
	s.b.WriteByte('?')
	s.args = append(s.args, v)
}

// filter writes f as a condition that is true exactly where f holds, or,
// with neg, exactly where it does not. Negation is pushed down to the
// operators, each of which has a negated form that treats null as a value
// (not gt 5 holds for null), so no NOT ever stands above SQL's unknown.
func (s *sqlText) filter(f *Filter, neg bool) {
	switch f.Op {
	case And, Or:
		if len(f.Kids) == 0 {
			// and of nothing holds everywhere, or of nothing nowhere.
			if (f.Op == And) != neg {
				s.write("1=1")
			} else {
				s.write("1=0")
			}
			return
		}
		join := " AND "
		if (f.Op == Or) != neg { // De Morgan
			join = " OR "
		}
		s.write("(")
		for i, k := range f.Kids {
			if i > 0 {
				s.write(join)
			}
			s.filter(k, neg)
		}
		s.write(")")
	case Not:
		s.filter(f.Kids[0], !neg)
	case SearchOp: // never negated: q is AND-ed with the filter
		s.match(f)
	case Ne:
		s.leaf(&Filter{Op: Eq, Col: f.Col, Value: f.Value}, !neg)
	case Nin:
		s.leaf(&Filter{Op: In, Col: f.Col, Values: f.Values, Null: f.Null}, !neg)
	default:
		s.leaf(f, neg)
	}
}

// leaf writes one operator. Its condition on non-null values is wrapped so
// that null is matched as the operator means: only is_null and an in list
// holding null match it; negated, the rest do.
func (s *sqlText) leaf(f *Filter, neg bool) {
	c := f.Col.quoted()
	if f.Op == IsNull {
		if f.Null != neg {
			s.write(c, " IS NULL")
		} else {
			s.write(c, " IS NOT NULL")
		}
		return
	}
	matchesNull := f.Op == In && f.Null
	switch {
	case !neg && !matchesNull:
		s.condition(f)
	case !neg:
		s.write("(")
		s.condition(f)
		s.write(" OR ", c, " IS NULL)")
	case !matchesNull:
		s.write("(", c, " IS NULL OR NOT ")
		s.condition(f)
		s.write(")")
	default:
		s.write("(", c, " IS NOT NULL AND NOT ")
		s.condition(f)
		s.write(")")
	}
}

// condition writes the operator's test of a non-null value.
func (s *sqlText) condition(f *Filter) {
	c := f.Col.quoted()
	switch f.Op {
	case Eq, Gt, Gte, Lt, Lte:
		s.write(c, comparisons[f.Op])
		s.arg(f.Value)
	case In:
		s.in(c, f.Values)
	case Contains:
		// Letters A–Z match either case, on both databases. PostgreSQL
		// folds them through translate (its ILIKE or lower would fold
		// more); SQLite's lower folds only those, and instr has no bound
		// on what it looks for, where its LIKE refuses a pattern over
		// 50,000 bytes.
		v := asciiLower(f.Value.(string))
		if s.d == Postgres {
			s.write("translate(", c, ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE ")
			s.arg("%" + escapeLike(v) + "%")
			s.write(` ESCAPE '\'`)
		} else {
			s.write("instr(lower(", c, "), ")
			s.arg(v)
			s.write(") > 0")
		}
	case Prefix:
		p := f.Value.(string)
		if s.d == Postgres {
			s.write("starts_with(", c, ", ")
			s.arg(p)
			s.write(")")
		} else {
			s.write("substr(", c, ", 1, ")
			s.arg(int64(utf8.RuneCountInString(p)))
			s.write(") = ")
			s.arg(p)
		}
	}
}

var comparisons = map[Op]string{Eq: " = ", Gt: " > ", Gte: " >= ", Lt: " < ", Lte: " <= "}

// in writes c IN (…). The list is padded to a power of two by repeating its
// last value, which changes nothing it matches but keeps the statement
// texts few, so each is prepared once.
func (s *sqlText) in(c string, values []any) {
	if len(values) == 0 {
		s.write("1=0")
		return
	}
	n := 1
	for n < len(values) {
		n *= 2
	}
	s.write(c, " IN (")
	for i := 0; i < n; i++ {
		if i > 0 {
			s.write(", ")
		}
		s.arg(values[min(i, len(values)-1)])
	}
	s.write(")")
}

// escapeLike escapes LIKE's wildcards and its escape character.
func escapeLike(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '%' || r == '_' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// asciiLower lowers A–Z only, as both databases' matching does.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// Where compiles f to a condition and its parameters ("" when f is nil).
func Where(d Dialect, f *Filter) (string, []any) {
	if f == nil {
		return "", nil
	}
	s := &sqlText{d: d}
	s.filter(f, false)
	return s.b.String(), s.args
}

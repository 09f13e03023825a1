package query

import (
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Page is one page of a list: which records (the compiled filter), in
// which order, and from where — a keyset position or an offset.
type Page struct {
	Where  string // the filter's condition, "" for none
	Args   []any  // its parameters
	Keys   []Key  // the order, the id last
	Limit  int
	Offset int
	// After is the position of the last record already seen: the page
	// starts after it, by keyset.
	After *Position
	// Rank is where a page ordered by RankColumn reads its records and
	// their ranks from; nil for any other order.
	Rank *Ranked
}

// Position is where a record stands in an order: the values of its keys
// but the id (nil for null), and its id.
type Position struct {
	Values []any
	ID     string
}

// Digested lists the keys whose values p carries by their digest (long
// texts): Resolve puts the values in their place.
func (p *Position) Digested() []int {
	var out []int
	for i, v := range p.Values {
		if _, ok := v.(Digest); ok {
			out = append(out, i)
		}
	}
	return out
}

// Resolve replaces the digests of p (the keys Digested lists) by the
// values the record p follows holds now, which found says it was; a value
// changed since, or a record gone, fails with ErrCursor: the walk cannot
// tell where it was.
func (p *Position) Resolve(found bool, values []sql.NullString) error {
	for k, i := range p.Digested() {
		if !found || !values[k].Valid || digestOf(values[k].String) != p.Values[i].(Digest) {
			return fmt.Errorf("%w any more: the record it follows was changed or deleted since, and it orders by a text too long to carry; start again from the first page", ErrCursor)
		}
		p.Values[i] = values[k].String
	}
	return nil
}

// Phase is one statement of a page: a condition beyond the filter, its
// parameters, and its ORDER BY. A page reads its phases in turn until it
// has enough records.
type Phase struct {
	Cond    string
	Args    []any
	OrderBy string
	// Offset phases skip Page.Offset records (LIMIT … OFFSET …).
	Offset bool
}

// Phases plans the statements of the page.
//
// Ordered by a single member, a page reads in two phases — the records
// whose key is not null, then those whose key is null — so that each is a
// range of the index (team, member, id) and a page far down the list costs
// what the first one does: (k, id) > (?, ?) walks the index from the
// position, where a condition written with OR would scan it from its start.
// Orders of several keys compare key by key, correct but not served by an
// index.
func (p *Page) Phases() []Phase {
	keys := p.Keys
	if p.Offset > 0 {
		return []Phase{{OrderBy: orderBy(keys), Offset: true}}
	}
	id := keys[len(keys)-1]
	switch {
	case len(keys) == 1:
		ph := Phase{OrderBy: orderBy(keys)}
		if p.After != nil {
			ph.Cond, ph.Args = `"id"`+beyond(id.Desc), []any{p.After.ID}
		}
		return []Phase{ph}
	case len(keys) == 2 && keys[0].Desc == id.Desc && keys[0].Col == RankColumn:
		// A rank is never null: one phase, from the position.
		ph := Phase{OrderBy: orderBy(keys)}
		if p.After != nil {
			ph.Cond = `("_rank", "id")` + strings.TrimSuffix(beyond(id.Desc), "?") + "(?, ?)"
			ph.Args = []any{p.After.Values[0], p.After.ID}
		}
		return []Phase{ph}
	case len(keys) == 2 && keys[0].Desc == id.Desc:
		return p.singleKey(keys[0])
	}
	ph := Phase{OrderBy: orderBy(keys)}
	if p.After != nil {
		s := &sqlText{}
		p.after(s)
		ph.Cond, ph.Args = s.b.String(), s.args
	}
	return []Phase{ph}
}

// beyond is the comparison that steps past a position in a direction.
func beyond(desc bool) string {
	if desc {
		return " < ?"
	}
	return " > ?"
}

// singleKey plans an order by one member k (and the id, the same way).
// Nulls come last going up and first going down.
func (p *Page) singleKey(k Key) []Phase {
	c := k.Col.quoted()
	dir := " ASC"
	if k.Desc {
		dir = " DESC"
	}
	values := Phase{Cond: c + " IS NOT NULL", OrderBy: c + dir + `, "id"` + dir}
	nulls := Phase{Cond: c + " IS NULL", OrderBy: `"id"` + dir}
	var atNull bool
	if p.After != nil {
		v := p.After.Values[0]
		atNull = v == nil
		if atNull {
			nulls.Cond += ` AND "id"` + beyond(k.Desc)
			nulls.Args = []any{p.After.ID}
		} else {
			values.Cond = "(" + c + `, "id")` + strings.TrimSuffix(beyond(k.Desc), "?") + "(?, ?)"
			values.Args = []any{v, p.After.ID}
		}
	}
	switch {
	case !k.Desc && atNull: // past every value
		return []Phase{nulls}
	case !k.Desc:
		return []Phase{values, nulls}
	case p.After != nil && !atNull: // past every null
		return []Phase{values}
	default:
		return []Phase{nulls, values}
	}
}

// after writes the condition of the records after p.After in p.Keys, key by
// key: equal on the keys before, beyond on this one. A null is greater than
// every value (it sorts last going up, first going down), so nothing is
// beyond a null going up, and every value is going down.
func (p *Page) after(s *sqlText) {
	s.write("(")
	terms := 0
	for i, k := range p.Keys {
		v := any(p.After.ID)
		if k.Col != IDColumn {
			v = p.After.Values[i]
		}
		if v == nil && !k.Desc {
			continue
		}
		if terms > 0 {
			s.write(" OR ")
		}
		terms++
		s.write("(")
		for j := 0; j < i; j++ {
			p.equal(s, j)
			s.write(" AND ")
		}
		c := k.Col.quoted()
		switch {
		case v == nil:
			s.write(c, " IS NOT NULL")
		case k.Desc:
			s.write(c, " < ")
			s.arg(v)
		case k.Col == IDColumn:
			s.write(c, " > ")
			s.arg(v)
		default:
			s.write("(", c, " > ")
			s.arg(v)
			s.write(" OR ", c, " IS NULL)")
		}
		s.write(")")
	}
	if terms == 0 {
		s.write("1=0")
	}
	s.write(")")
}

// equal writes "key j equals the position's value".
func (p *Page) equal(s *sqlText, j int) {
	k := p.Keys[j]
	v := p.After.Values[j]
	if v == nil {
		s.write(k.Col.quoted(), " IS NULL")
		return
	}
	s.write(k.Col.quoted(), " = ")
	s.arg(v)
}

// shapeEscaper writes a value's \ and | escaped in a shape.
var shapeEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`)

// Shape is the page's filter and order as text: a cursor made for one shape
// is refused for another.
func (p *Page) Shape() string {
	var b strings.Builder
	b.WriteString(p.Where)
	for _, a := range p.Args {
		var text string
		switch v := a.(type) {
		case time.Time:
			text = v.UTC().Format(time.RFC3339Nano)
		default:
			text = fmt.Sprint(v)
		}
		// Escaped, so that no two lists of values read the same: a value
		// holding "|string:" could otherwise pass for two.
		fmt.Fprintf(&b, "|%T:%s", a, shapeEscaper.Replace(text))
	}
	if p.Rank != nil {
		for _, a := range p.Rank.Args {
			fmt.Fprintf(&b, "|rank:%s", shapeEscaper.Replace(fmt.Sprint(a)))
		}
	}
	b.WriteString("|order:")
	for _, k := range p.Keys {
		if k.Desc {
			b.WriteByte('-')
		}
		b.WriteString(k.Col.Member + ",")
	}
	return b.String()
}

package query

import (
	"database/sql"
	"fmt"
	"slices"
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
	// Rank is the relevance tiers a page ordered by RankColumn reads in
	// turn; nil for any other order.
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
	// Tier is the relevance tier the phase reads (1 the best), 0 outside
	// a page ordered by RankColumn.
	Tier int
	// Narrow phases sort their records' rowids alone (by the order's
	// keys), then read the page's records by rowid: a tier whose matches are read from a
	// set and sorted (Tier.Sorted) would otherwise carry every column of
	// every match through the sort, to keep a page of them.
	Narrow bool
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
	if p.Offset > 0 && p.Rank != nil {
		// Tiers in turn cannot skip a number of records: one statement,
		// ordered by tier.
		order, args := p.tierOrder()
		if order != "" {
			order += ", "
		}
		m := p.Rank.Match
		return []Phase{{Cond: m.Cond, Args: append(slices.Clip(m.Args), args...), OrderBy: order + orderBy(keys[1:]), Offset: true}}
	}
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
	case p.Rank != nil:
		return p.tiers()
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

// tiers plans a page ordered by relevance (Search.Rank): a phase a tier,
// best first going down (-_rank), last first going up, each a walk by id
// in the same direction — of the list's (team, id) index filtered by the
// tier's match when the words are common, of the search index's matches
// sorted when they are rare. A position carries its tier and id: the page
// starts in that tier after the id, then reads the tiers that follow it.
func (p *Page) tiers() []Phase {
	id := p.Keys[1]
	n := len(p.Rank.Tiers)
	var out []Phase
	for i := range n {
		tier := i + 1
		if !id.Desc {
			tier = n - i
		}
		var after *string
		if p.Rank.Tiers[tier-1].Empty {
			continue
		}
		if p.After != nil {
			at := int(p.After.Values[0].(int64))
			if id.Desc && tier < at || !id.Desc && tier > at {
				continue // before the position's tier
			}
			if tier == at {
				after = &p.After.ID
			}
		}
		out = append(out, p.tierPhases(p.Rank.Tiers[tier-1], tier, after)...)
	}
	return out
}

// tierPhases plans the reading of one tier from after (nil: its start).
// A tier with a Probe form reads the first records of the walk
// (Ranked.Walk) by it, the rest from its sets (Probe).
func (p *Page) tierPhases(t Tier, tier int, after *string) []Phase {
	desc := p.Keys[1].Desc
	phase := func(t Tier, bound string, args []any) Phase {
		if after != nil {
			t.and(`"id"`+beyond(desc), *after)
		}
		if bound != "" {
			t.and(bound, args...)
		}
		order := orderBy(p.Keys[1:])
		if t.Sorted && p.Rank.Prepared {
			order = `"id" || ''` + strings.TrimPrefix(order, `"id"`)
		}
		return Phase{Cond: t.Cond, Args: t.Args, OrderBy: order, Tier: tier, Narrow: t.Sorted && !p.Rank.Prepared}
	}
	if t.Probe == nil || p.Rank.Walk == nil {
		return []Phase{phase(t, "", nil)}
	}
	walk := p.Rank.Walk
	bound, args := walk.bound(desc, after)
	within, past := `"id" <= `, `"id" > `
	if desc {
		within, past = `"id" >= `, `"id" < `
	}
	probe := *t.Probe
	if w := walk.window(after); w != nil && w.Compact(walk.Size) {
		probe = t.Probe.Ranged.within(w)
	}
	return []Phase{phase(probe, within+bound, args), phase(t, past+bound, args)}
}

// CheckTier fails with ErrCursor when the position of a page ordered by
// relevance names no tier of it: a cursor made before the resource's
// searchable members were reweighted.
func (p *Page) CheckTier() error {
	if p.Rank == nil || p.After == nil {
		return nil
	}
	if t, ok := p.After.Values[0].(int64); !ok || t < 1 || int(t) > len(p.Rank.Tiers) {
		return fmt.Errorf("%w any more: the search's relevance tiers changed since it was made; start again from the first page", ErrCursor)
	}
	return nil
}

// tierOrder orders the records of a page ordered by relevance by their
// tier, for a page read by offset, and its parameters; "" where every
// tier but the last is empty (Tier.Empty).
func (p *Page) tierOrder() (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	n := len(p.Rank.Tiers)
	for i, t := range p.Rank.Tiers[:n-1] {
		if t.Empty {
			continue // no record is in it
		}
		fmt.Fprintf(&b, " WHEN %s THEN %d", t.Cond, i+1)
		args = append(args, t.Args...)
	}
	if b.Len() == len("CASE") {
		return "", nil
	}
	fmt.Fprintf(&b, " ELSE %d END", n)
	if p.Keys[0].Desc {
		return b.String() + " ASC", args
	}
	return b.String() + " DESC", args
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
		fmt.Fprintf(&b, "|rank:%s", shapeEscaper.Replace(p.Rank.Key))
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

package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// oracleFilter is a filter the oracle evaluates and the service is sent.
type oracleFilter struct {
	op     string // and, or, not, or an operator
	kids   []*oracleFilter
	member *oracleMember
	value  any // JSON value; for in and nin a []any
}

type oracleQuery struct {
	filter *oracleFilter
	order  string // order_by
	desc   bool   // order_direction
	limit  int
	query  bool // send the filter as a query string
	keys   []oracleKey
}

type oracleKey struct {
	member string // "" for the id
	desc   bool
}

func (q *oracleQuery) String() string {
	b, _ := json.Marshal(q.filter.json())
	return fmt.Sprintf("filter %s order_by %q desc %v limit %d query %v", b, q.order, q.desc, q.limit, q.query)
}

func (f *oracleFilter) json() any {
	if f == nil {
		return map[string]any{}
	}
	switch f.op {
	case "and", "or":
		var kids []any
		for _, k := range f.kids {
			kids = append(kids, k.json())
		}
		return map[string]any{f.op: kids}
	case "not":
		return map[string]any{"not": f.kids[0].json()}
	case "exact":
		return map[string]any{f.member.name: f.value}
	}
	return map[string]any{f.member.name: map[string]any{f.op: f.value}}
}

func randomQuery(rng *rand.Rand, res oracleResource) *oracleQuery {
	q := &oracleQuery{limit: 1 + rng.IntN(7), desc: rng.IntN(2) == 0}
	if rng.IntN(4) > 0 {
		if rng.IntN(3) == 0 {
			q.filter = randomLeaf(rng, res)
		} else {
			q.filter = randomFilter(rng, res, 3)
		}
		q.query = rng.IntN(2) == 0 && queryable(q.filter)
	}
	n := rng.IntN(3)
	var parts []string
	for _, i := range rng.Perm(len(res.members))[:n] {
		m := res.members[i].name
		d := q.desc
		if rng.IntN(2) == 0 {
			m, d = "-"+m, true
		}
		parts = append(parts, m)
		q.keys = append(q.keys, oracleKey{member: strings.TrimPrefix(m, "-"), desc: d})
	}
	q.order = strings.Join(parts, ",")
	idDesc := q.desc
	if len(q.keys) > 0 {
		idDesc = q.keys[len(q.keys)-1].desc
	}
	q.keys = append(q.keys, oracleKey{desc: idDesc})
	return q
}

func randomFilter(rng *rand.Rand, res oracleResource, depth int) *oracleFilter {
	if depth == 0 || rng.IntN(3) > 0 {
		return randomLeaf(rng, res)
	}
	switch rng.IntN(3) {
	case 0:
		return &oracleFilter{op: "not", kids: []*oracleFilter{randomFilter(rng, res, depth-1)}}
	default:
		f := &oracleFilter{op: []string{"and", "or"}[rng.IntN(2)]}
		for i := 0; i < 1+rng.IntN(3); i++ {
			f.kids = append(f.kids, randomFilter(rng, res, depth-1))
		}
		return f
	}
}

func randomLeaf(rng *rand.Rand, res oracleResource) *oracleFilter {
	m := &res.members[rng.IntN(len(res.members))]
	ops := []string{"exact", "eq", "ne", "in", "nin", "is_null"}
	if m.typ != "boolean" {
		ops = append(ops, "gt", "gte", "lt", "lte")
	}
	if m.typ == "string" {
		ops = append(ops, "contains", "prefix")
	}
	f := &oracleFilter{op: ops[rng.IntN(len(ops))], member: m}
	pick := func() any { return m.values[rng.IntN(len(m.values))] }
	switch f.op {
	case "is_null":
		f.value = rng.IntN(2) == 0
	case "in", "nin":
		vs := []any{}
		for i := 0; i < rng.IntN(4); i++ {
			vs = append(vs, pick())
		}
		f.value = vs
	case "exact", "eq", "ne":
		f.value = pick()
	default:
		for f.value == nil {
			f.value = pick()
		}
		if f.op == "contains" || f.op == "prefix" {
			s := f.value.(string)
			if len(s) > 1 && rng.IntN(2) == 0 {
				s = s[:1+rng.IntN(len(s)-1)]
			}
			if rng.IntN(3) == 0 {
				s = strings.ToUpper(s)
			}
			f.value = s
		}
	}
	return f
}

// queryable tells whether a query string can say what f says: it has no
// null (but is_null), and no and or or without filters.
func queryable(f *oracleFilter) bool {
	switch f.op {
	case "and", "or", "not":
		for _, k := range f.kids {
			if !queryable(k) {
				return false
			}
		}
		return len(f.kids) > 0
	}
	switch v := f.value.(type) {
	case nil:
		return false
	case []any:
		return !slices.Contains(v, nil)
	}
	return true
}

// addQueryFilter writes f into a query string under prefix ("filter"):
// filter[member][op]=value, and, or and not nesting as
// filter[or][0][member]=value. The values of in and nin are separated by
// commas, or numbered (filter[member][in][0]=…) where a value holds a
// comma or is empty, and in every list of an odd length.
func addQueryFilter(params url.Values, prefix string, f *oracleFilter) {
	switch f.op {
	case "and", "or":
		for i, k := range f.kids {
			addQueryFilter(params, fmt.Sprintf("%s[%s][%d]", prefix, f.op, i), k)
		}
		return
	case "not":
		addQueryFilter(params, prefix+"[not]", f.kids[0])
		return
	}
	key := prefix + "[" + f.member.name + "]"
	if f.op != "exact" {
		key += "[" + f.op + "]"
	}
	v, list := f.value.([]any)
	if !list {
		params.Set(key, queryText(f.value))
		return
	}
	var parts []string
	numbered := len(v)%2 == 1
	for _, x := range v {
		s := queryText(x)
		numbered = numbered || s == "" || strings.Contains(s, ",")
		parts = append(parts, s)
	}
	if !numbered {
		params.Set(key, strings.Join(parts, ","))
		return
	}
	for i, s := range parts {
		params.Set(key+"["+strconv.Itoa(i)+"]", s)
	}
}

package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The list query language against an oracle: random records (nulls
// included), random filters and orders; every answer must equal the same
// query evaluated in Go over the same records, and walking by cursor must
// equal walking by offset, every record exactly once.

// oracleMember is a member the oracle varies, with the values it draws from.
type oracleMember struct {
	name, typ string
	values    []any // JSON values to store; nil stands for null
}

type oracleResource struct {
	plural  string
	members []oracleMember
	// parent makes every record a child of one parent record first.
	parent func(h *harness) (member, id string)
}

var texts = []any{nil, "a", "b", "Ab", "ab", "abc", "B", "c d", "é", "a%b", "a_b", ""}

var oracleResources = []oracleResource{
	{plural: "users", members: []oracleMember{
		{"active", "boolean", []any{nil, true, false}},
		{"bio", "string", texts},
		{"country", "string", []any{nil, "nl", "de", "fr", "Nl"}},
		{"birthday", "date", []any{nil, "1990-01-31", "1990-02-01", "2001-12-31", "1969-07-20"}},
		{"last_seen", "datetime", []any{nil, "2026-11-20T10:00:00Z", "2026-11-20T10:00:00.5Z", "2026-11-20T11:00:00+01:00",
			"2026-11-20T10:00:00.000001Z", "1999-01-01T00:00:00Z"}},
	}},
	{plural: "packing_list_items", members: []oracleMember{
		{"sku", "string", texts},
		{"quantity", "integer", []any{nil, -3, 0, 1, 2, 1 << 40, -(1 << 62)}},
		{"arrived", "boolean", []any{nil, true, false}},
	}},
	{plural: "work_order_line_items", members: []oracleMember{
		{"line_status", "string", []any{nil, "open", "closed", "Open", "done"}},
		{"total_quantity", "number", []any{nil, -1.5, 0, 2.25, 10, 1e9}},
		{"part_name", "string", texts},
	}, parent: func(h *harness) (string, string) {
		wo := h.call("POST", "/v1/work_orders", `{}`).want(201).obj()
		return "work_order_number", wo["id"].(string)
	}},
}

func TestListsAgreeWithTheOracle(t *testing.T) {
	for _, res := range oracleResources {
		t.Run(res.plural, func(t *testing.T) {
			eachCollation(t, func(t *testing.T, h *harness) {
				rng := rand.New(rand.NewPCG(7, uint64(len(res.plural))))
				records := seedOracle(t, h, rng, res)
				for i := 0; i < 60; i++ {
					q := randomQuery(rng, res)
					want := q.expect(records)
					label := fmt.Sprintf("query %d: %s", i, q)
					byCursor := walk(t, h, res.plural, q, true, len(want))
					if !slices.Equal(byCursor, want) {
						t.Fatalf("%s\nby cursor %v\n   oracle %v", label, byCursor, want)
					}
					if i%3 == 0 {
						if byOffset := walk(t, h, res.plural, q, false, len(want)); !slices.Equal(byOffset, want) {
							t.Fatalf("%s\nby offset %v\n   oracle %v", label, byOffset, want)
						}
					}
				}
			})
		})
	}
}

// oracleRecord is a record as the oracle sees it: member → Go value
// (string, int64, float64, bool, time.Time) or nil.
type oracleRecord struct {
	id     string
	values map[string]any
}

func seedOracle(t *testing.T, h *harness, rng *rand.Rand, res oracleResource) []oracleRecord {
	t.Helper()
	var parentMember, parentID string
	if res.parent != nil {
		parentMember, parentID = res.parent(h)
	}
	var out []oracleRecord
	for i := 0; i < 40; i++ {
		body := map[string]any{"id": fmt.Sprintf("r%02d", rng.IntN(1000))}
		for _, m := range res.members {
			body[m.name] = m.values[rng.IntN(len(m.values))]
		}
		if parentMember != "" {
			body[parentMember] = parentID
		}
		b, _ := json.Marshal(body)
		r := h.call("POST", "/v1/"+res.plural, string(b))
		if r.Status == 409 { // the id was drawn twice
			continue
		}
		rec := r.want(201).obj()
		o := oracleRecord{id: rec["id"].(string), values: map[string]any{}}
		for _, m := range res.members {
			o.values[m.name] = goValue(t, m.typ, rec[m.name])
		}
		out = append(out, o)
	}
	return out
}

// goValue converts an answered member to the oracle's Go value.
func goValue(t *testing.T, typ string, v any) any {
	if v == nil {
		return nil
	}
	switch typ {
	case "integer":
		n, err := v.(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	case "number":
		f, err := v.(json.Number).Float64()
		if err != nil {
			t.Fatal(err)
		}
		return f
	case "date":
		d, err := time.Parse(time.DateOnly, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return d
	case "datetime":
		d, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return v
}

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

// walk reads every page of the query's list, by cursor or by offset, and
// returns the ids in the order answered; no id may come twice.
func walk(t *testing.T, h *harness, plural string, q *oracleQuery, byCursor bool, total int) []string {
	t.Helper()
	ids := []string{}
	seen := map[string]bool{}
	cursor, offset := "", 0
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("%s: the walk does not end", q)
		}
		params := url.Values{"limit": {strconv.Itoa(q.limit)}}
		if q.order != "" {
			params.Set("order_by", q.order)
		}
		if q.desc {
			params.Set("order_direction", "desc")
		}
		body := map[string]any{}
		if q.query {
			addQueryFilter(params, "filter", q.filter)
		} else if q.filter != nil {
			body["filter"] = q.filter.json()
		}
		if cursor != "" {
			params.Set("cursor", cursor)
		}
		if !byCursor && offset > 0 {
			params.Set("offset", strconv.Itoa(offset))
		}
		if pages == 0 {
			params.Set("count", "exact")
		}
		b, _ := json.Marshal(body)
		// The document is checked on the first page of every walk; checking
		// every page would cost most of the test's time.
		h.unchecked = pages > 0
		r := h.call("GET", "/v1/"+plural+"?"+params.Encode(), string(b)).want(200)
		h.unchecked = false
		page := r.list(plural)
		for _, rec := range page {
			id := rec.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("%s: %s answered twice", q, id)
			}
			seen[id] = true
			ids = append(ids, id)
		}
		paging := r.obj("paging")
		if pages == 0 && paging["total"] != json.Number(strconv.Itoa(total)) {
			t.Fatalf("%s: total %v, want %d", q, paging["total"], total)
		}
		next, _ := paging["next_cursor"].(string)
		if paging["has_more"] != (next != "") {
			t.Fatalf("%s: has_more %v with next_cursor %q", q, paging["has_more"], next)
		}
		if next == "" {
			return ids
		}
		if byCursor {
			cursor = next
		} else {
			offset += len(page)
		}
	}
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

package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
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

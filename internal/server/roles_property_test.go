package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/policy"
)

// A property of every role's filter, over random policies on random
// records: a record is answered by GET exactly when it is in the role's
// list; the list is what the filter means (the oracle of the list tests);
// the count equals the list's length; walking by cursor and exporting
// answer the same set.
func TestRoleFiltersAreConsistent(t *testing.T) {
	res := oracleResources[1] // packing_list_items: text, integer, boolean members
	sku := &res.members[0]
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			pols := &policy.Policies{File: "random.yaml", Roles: map[string]*policy.Role{}}
			cfg := testConfig()
			cfg.Policies = pols
			h := newHarness(t, d, cfg)
			records := seedOracle(t, h, rand.New(rand.NewPCG(11, 28)), res)
			subjects := []string{"a", "b", "Ab"}
			tokens := map[string]string{}
			for _, s := range subjects {
				_, secret, err := auth.NewStore(h.db, 0).CreateWith(context.Background(), auth.NewToken{Name: "prop-" + s, Scope: auth.Write, Role: "prop", Subject: s})
				if err != nil {
					t.Fatal(err)
				}
				tokens[s] = secret
			}
			rapid.Check(t, func(rt *rapid.T) {
				sub := rapid.SampledFrom(subjects).Draw(rt, "subject")
				f := drawFilter(rt, res, 3)
				// The policy's filter may hold the caller's subject.
				policyFilter, oracle := f.json(), f
				if rapid.Bool().Draw(rt, "by subject") {
					mine := &oracleFilter{op: "exact", member: sku, value: sub}
					oracle = &oracleFilter{op: "and", kids: []*oracleFilter{f, mine}}
					policyFilter = map[string]any{"and": []any{f.json(), map[string]any{"sku": "$auth.sub"}}}
				}
				doc, _ := json.Marshal(map[string]any{"roles": map[string]any{"prop": map[string]any{
					res.plural: map[string]any{"read": map[string]any{"filter": policyFilter}}}}})
				parsed, err := policy.Parse("random.yaml", doc)
				if err != nil {
					rt.Fatalf("the drawn policy does not parse: %v\n%s", err, doc)
				}
				pols.Roles["prop"] = parsed.Roles["prop"]
				token := tokens[sub]
				want := (&oracleQuery{filter: oracle, keys: []oracleKey{{}}}).expect(records)

				list := h.uncheckedAs(token, "GET", "/v1/"+res.plural+"?limit=1000&count=exact", "").want(200)
				got := ids(rt, list.list(res.plural))
				sorted := slices.Clone(want)
				sort.Strings(sorted)
				if !slices.Equal(got, sorted) {
					rt.Fatalf("policy %s\nlist   %v\noracle %v", doc, got, sorted)
				}
				if total := list.at("paging", "total"); total != json.Number(fmt.Sprint(len(got))) {
					rt.Fatalf("policy %s: count %v, list %d", doc, total, len(got))
				}
				walked := walkByCursor(rt, h, token, res.plural)
				sort.Strings(walked)
				if !slices.Equal(walked, got) {
					rt.Fatalf("policy %s: by cursor %v, list %v", doc, walked, got)
				}
				exported := exportedIDs(rt, h, token, res.plural)
				sort.Strings(exported)
				if !slices.Equal(exported, got) {
					rt.Fatalf("policy %s: export %v, list %v", doc, exported, got)
				}
				for _, r := range records {
					status := h.uncheckedAs(token, "GET", "/v1/"+res.plural+"/"+r.id, "").Status
					if in := slices.Contains(got, r.id); in != (status == 200) || !in && status != 404 {
						rt.Fatalf("policy %s: GET %s is %d, in the list: %v", doc, r.id, status, in)
					}
				}
			})
		})
	}
}

// walkByCursor is the ids of every record of plural the token lists,
// walking by cursor three at a time.
func walkByCursor(rt *rapid.T, h *harness, token, plural string) []string {
	var walked []string
	cursor := ""
	for range 100 {
		q := url.Values{"limit": {"3"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		page := h.uncheckedAs(token, "GET", "/v1/"+plural+"?"+q.Encode(), "").want(200)
		walked = append(walked, ids(rt, page.list(plural))...)
		next, _ := page.at("paging", "next_cursor").(string)
		if next == "" {
			break
		}
		cursor = next
	}
	return walked
}

// exportedIDs is the ids of every record of plural the token exports as
// NDJSON.
func exportedIDs(rt *rapid.T, h *harness, token, plural string) []string {
	export := h.uncheckedAs(token, "GET", "/v1/"+plural, "", "Accept", "application/x-ndjson").want(200)
	var exported []string
	for _, line := range strings.Split(strings.TrimSpace(string(export.Body)), "\n") {
		if line == "" {
			continue
		}
		var r struct{ ID string }
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID == "" {
			rt.Fatalf("export line %q", line)
		}
		exported = append(exported, r.ID)
	}
	return exported
}

// drawFilter draws a filter of the oracle's members, as randomFilter
// does, from rapid's draws (so a failure shrinks to a small filter).
func drawFilter(rt *rapid.T, res oracleResource, depth int) *oracleFilter {
	if depth == 0 || rapid.IntRange(0, 2).Draw(rt, "leaf") > 0 {
		return drawLeaf(rt, res)
	}
	switch rapid.IntRange(0, 2).Draw(rt, "connective") {
	case 0:
		return &oracleFilter{op: "not", kids: []*oracleFilter{drawFilter(rt, res, depth-1)}}
	default:
		f := &oracleFilter{op: rapid.SampledFrom([]string{"and", "or"}).Draw(rt, "and/or")}
		for range rapid.IntRange(1, 3).Draw(rt, "kids") {
			f.kids = append(f.kids, drawFilter(rt, res, depth-1))
		}
		return f
	}
}

func drawLeaf(rt *rapid.T, res oracleResource) *oracleFilter {
	m := &res.members[rapid.IntRange(0, len(res.members)-1).Draw(rt, "member")]
	ops := []string{"exact", "eq", "ne", "in", "nin", "is_null"}
	if m.typ != "boolean" {
		ops = append(ops, "gt", "gte", "lt", "lte")
	}
	if m.typ == "string" {
		ops = append(ops, "contains", "prefix")
	}
	f := &oracleFilter{op: rapid.SampledFrom(ops).Draw(rt, "operator"), member: m}
	nonNull := slices.DeleteFunc(slices.Clone(m.values), func(v any) bool { return v == nil })
	switch f.op {
	case "is_null":
		f.value = rapid.Bool().Draw(rt, "null")
	case "in", "nin":
		vs := []any{}
		for range rapid.IntRange(0, 3).Draw(rt, "values") {
			vs = append(vs, rapid.SampledFrom(m.values).Draw(rt, "value"))
		}
		f.value = vs
	case "exact", "eq", "ne":
		f.value = rapid.SampledFrom(m.values).Draw(rt, "value")
	default:
		f.value = rapid.SampledFrom(nonNull).Draw(rt, "value")
	}
	return f
}

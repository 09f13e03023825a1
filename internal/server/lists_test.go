package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"records/internal/auth"
)

// Every bad list parameter is a 400 problem naming the member at fault,
// through the real server, on both databases.
func TestBadListParametersName(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		cases := []struct {
			query, body string
			member      string
		}{
			{"filter[nope]=1", "", "filter.nope"},
			{"filter[quantity][gt]=many", "", "filter.quantity.gt"},
			{"filter[arrived][gt]=true", "", "filter.arrived.gt"},
			{"filter[quantity][contains]=1", "", "filter.quantity.contains"},
			{"filter[sku][between]=a", "", "filter.sku.between"},
			{"", `{"filter":{"or":{"sku":"a"}}}`, "filter.or"},
			{"", `{"filter":{"not":{"not":{"not":{"not":{"not":{"not":{"not":{"not":{"not":{"sku":"a"}}}}}}}}}}}`, "filter.not.not.not.not.not.not.not.not.not"},
			{"order_by=sku,nope", "", "order_by"},
			{"order_by=-", "", "order_by"},
			{"cursor=abc", "", "cursor"},
			{"cursor=abc&offset=3", "", "cursor"},
			{"count=all", "", "count"},
			{"fields=sku,nope", "", "fields"},
			{"expand=nothing", "", "expand"},
			{"limit=0", "", "limit"},
			{"filter[quantity][in]=1,x", "", "filter.quantity.in[1]"},
			{"filter[quantity][in][0]=1&filter[quantity][in][2]=x", "", "filter.quantity.in[2]"},
			{"filter[or]=a", "", "filter.or"},
			{"filter=abc", "", "filter"},
			{"filter[or][0][sku]=a&filter[or][1][not][quantity][gt]=many", "", "filter.or[1].not.quantity.gt"},
			{"filter" + strings.Repeat("[not]", 9) + "[sku]=a", "", "filter" + strings.Repeat(".not", 9)},
		}
		for _, c := range cases {
			h.call("GET", "/v1/packing_list_items?"+c.query, c.body).problem(400, "invalid_request", c.member)
		}
	})
}

// A filter at its limits — ten in lists of 1,000 values, the most a filter
// holds in all — is answered on both databases, whose statements take at
// most 32,766 (SQLite) and 65,535 (PostgreSQL) parameters: as a page, a
// count and an export, in a body and in a query string. One value more is
// a 400 naming the list that went past the limit.
func TestFiltersAtTheirLimitsAreAnswered(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/packing_list_items", `{"id":"hit","sku":"s-7"}`).want(201)
		h.call("POST", "/v1/packing_list_items", `{"id":"miss","sku":"other"}`).want(201)
		lists := func(n, last int) (string, string) {
			var body, query strings.Builder
			body.WriteString(`{"filter":{"or":[`)
			for i := range n {
				size := 1000
				if i == n-1 {
					size = last
				}
				if i > 0 {
					body.WriteByte(',')
				}
				body.WriteString(`{"sku":{"in":[`)
				vals := make([]string, size)
				for j := range size {
					vals[j] = fmt.Sprintf("s-%d", i*1000+j)
					if j > 0 {
						body.WriteByte(',')
					}
					fmt.Fprintf(&body, "%q", vals[j])
				}
				body.WriteString(`]}}`)
				fmt.Fprintf(&query, "&filter[or][%d][sku][in]=%s", i, strings.Join(vals, ","))
			}
			body.WriteString(`]}}`)
			return body.String(), query.String()
		}
		body, query := lists(10, 1000)
		page := h.call("GET", "/v1/packing_list_items?count=exact", body).want(200)
		if items := page.obj()["packing_list_items"].([]any); len(items) != 1 || page.obj("paging")["total"] != json.Number("1") {
			t.Fatalf("the largest filter answered %s", page.Body)
		}
		h.call("GET", "/v1/packing_list_items?count=exact"+query, "").want(200)
		h.unchecked = true // the document describes JSON answers, not exports
		export := h.call("GET", "/v1/packing_list_items", body, "Accept", "application/x-ndjson").want(200)
		h.unchecked = false
		if lines := strings.Count(string(export.Body), "\n"); lines != 1 {
			t.Fatalf("the export of the largest filter has %d lines: %s", lines, export.Body)
		}
		body, query = lists(11, 1)
		h.call("GET", "/v1/packing_list_items", body).problem(400, "invalid_request", "filter.or[10].sku.in")
		h.call("GET", "/v1/packing_list_items?"+query[1:], "").problem(400, "invalid_request", "filter.or[10].sku.in")
		// Forty lists of 1,000, within the limits of one list and of
		// operators, would pass both databases' limits of parameters.
		body, _ = lists(40, 1000)
		h.call("GET", "/v1/packing_list_items", body).problem(400, "invalid_request", "filter.or[10].sku.in")
	})
}

// A cursor works only for the list it was made for: another filter,
// order, resource or team, or a byte changed, is a 400 naming cursor.
func TestCursorsAreBoundToTheirList(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for i := 0; i < 3; i++ {
			h.call("POST", "/v1/packing_list_items", fmt.Sprintf(`{"id":"i%d","sku":"s%d"}`, i, i)).want(201)
			h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"c%d"}`, i)).want(201)
		}
		next := func(path string) string {
			c, _ := h.call("GET", path, "").want(200).obj("paging")["next_cursor"].(string)
			if c == "" {
				t.Fatalf("%s: no next_cursor", path)
			}
			return c
		}
		cur := next("/v1/packing_list_items?limit=1&order_by=sku")
		h.call("GET", "/v1/packing_list_items?limit=1&order_by=sku&cursor="+url.QueryEscape(cur), "").want(200)
		h.call("GET", "/v1/packing_list_items?limit=5&order_by=sku&cursor="+url.QueryEscape(cur), "").want(200)
		for _, path := range []string{
			"/v1/packing_list_items?limit=1&cursor=",                                // another order
			"/v1/packing_list_items?limit=1&order_by=-sku&cursor=",                  // another direction
			"/v1/packing_list_items?limit=1&order_by=sku&filter[sku][ne]=x&cursor=", // another filter
			"/v1/customers?limit=1&order_by=id&cursor=",                             // another resource
		} {
			h.call("GET", path+url.QueryEscape(cur), "").problem(400, "invalid_request", "cursor")
		}
		altered := []byte(cur)
		altered[3] ^= 1
		h.call("GET", "/v1/packing_list_items?limit=1&order_by=sku&cursor="+url.QueryEscape(string(altered)), "").problem(400, "invalid_request", "cursor")
		other := h.newToken("other", auth.Write, "another team")
		h.callAs(other, "GET", "/v1/packing_list_items?limit=1&order_by=sku&cursor="+url.QueryEscape(cur), "").problem(400, "invalid_request", "cursor")
	})
}

// Counts come only when asked; an estimate is exact on small tables.
func TestCounts(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for i := 0; i < 5; i++ {
			h.call("POST", "/v1/packing_list_items", fmt.Sprintf(`{"quantity":%d}`, i)).want(201)
		}
		paging := h.call("GET", "/v1/packing_list_items?limit=2", "").want(200).obj("paging")
		if _, ok := paging["total"]; ok {
			t.Error("no count unless asked")
		}
		for _, how := range []string{"exact", "estimated"} {
			paging = h.call("GET", "/v1/packing_list_items?limit=2&filter[quantity][gte]=2&count="+how, "").want(200).obj("paging")
			if paging["total"] != json.Number("3") || paging["total_is_estimate"] != false {
				t.Errorf("count=%s: %v", how, paging)
			}
		}
	})
}

// On PostgreSQL, a large table's estimated count comes from the planner.
func TestEstimatedCountOnALargeTable(t *testing.T) {
	h := newHarness(t, "postgres", testConfig())
	ctx := context.Background()
	if _, err := h.db.Exec(ctx, `INSERT INTO packing_list_items (id, team_id, quantity) SELECT 'g' || n, 1, n FROM generate_series(1, 30000) AS n`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Exec(ctx, `ANALYZE packing_list_items`); err != nil {
		t.Fatal(err)
	}
	paging := h.call("GET", "/v1/packing_list_items?limit=1&count=estimated", "").want(200).obj("paging")
	total, _ := paging["total"].(json.Number).Int64()
	if paging["total_is_estimate"] != true || total < 20000 || total > 40000 {
		t.Fatalf("estimate of 30000: %v", paging)
	}
	paging = h.call("GET", "/v1/packing_list_items?limit=1&count=exact", "").want(200).obj("paging")
	if paging["total"] != json.Number("30000") || paging["total_is_estimate"] != false {
		t.Fatalf("exact: %v", paging)
	}
}

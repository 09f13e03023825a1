package server_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
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

// Expanded records equal what separate reads answer, and each expanded
// edge costs one query for the page, not one per record.
func TestExpandEqualsSeparateReads(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for r := 0; r < 4; r++ {
			h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"r%d","status":"open"}`, r)).want(201)
			for i := 0; i < r; i++ {
				h.call("POST", "/v1/return_line_items", fmt.Sprintf(`{"id":"r%d-li%d","return_id":"r%d","sku":"x"}`, r, i, r)).want(201)
			}
		}
		// statements counts what a request runs: the token's check, the page,
		// and one query per expanded edge.
		statements := func(path string) (*response, int64) {
			before := h.db.Statements()
			r := h.call("GET", path, "").want(200)
			return r, h.db.Statements() - before
		}
		_, plain := statements("/v1/returns")
		page, n := statements("/v1/returns?expand=return_line_items&fields=status")
		if n != plain+1 {
			t.Errorf("a page of 4 with one expanded edge ran %d statements, %d without", n, plain)
		}
		for _, rec := range page.list("returns") {
			ret := rec.(map[string]any)
			if len(ret) != 4 { // id, version, status, expand
				t.Errorf("fields=status answered %v", ret)
			}
			id := ret["id"].(string)
			got := ret["expand"].(map[string]any)["return_line_items"].([]any)
			want := h.call("GET", "/v1/return_line_items?order_by=id&filter[return_id]="+id, "").want(200).list("return_line_items")
			if !jsonEqual(got, want) {
				t.Errorf("%s expanded %v, separately %v", id, got, want)
			}
		}
		_, plain = statements("/v1/return_line_items")
		r, n := statements("/v1/return_line_items?expand=return")
		if n != plain+1 {
			t.Errorf("a page of 6 expanding the parent ran %d statements, %d without", n, plain)
		}
		items := r.list("return_line_items")
		for _, it := range items {
			item := it.(map[string]any)
			parent := h.call("GET", "/v1/returns/"+item["return_id"].(string), "").want(200).obj()
			if got := item["expand"].(map[string]any)["return"]; !jsonEqual(got, parent) {
				t.Errorf("%v expanded %v, separately %v", item["id"], got, parent)
			}
		}
		one := h.call("GET", "/v1/returns/r3?expand=return_line_items", "").want(200).obj()
		if n := len(one["expand"].(map[string]any)["return_line_items"].([]any)); n != 3 {
			t.Errorf("a single read expanded %d line items, want 3", n)
		}
		if _, ok := h.call("GET", "/v1/returns/r3", "").want(200).obj()["expand"]; ok {
			t.Error("expand is answered only when asked for")
		}
		h.call("GET", "/v1/returns/r3?expand=nope", "").problem(400, "invalid_request", "expand")
		h.call("GET", "/v1/returns/r3?fields=nope", "").problem(400, "invalid_request", "fields")
	})
}

// Expanded pages are built in pooled buffers that go back to the pool once
// the answer is written: pages answered at the same time, children and
// parents expanded, each come out exactly as when answered alone.
func TestExpandedPagesAnsweredAtOnceStayWhole(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		var items strings.Builder
		items.WriteByte('[')
		for r := 0; r < 20; r++ {
			h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"r%02d","status":"open","description":"return %d"}`, r, r)).want(201)
			for i := 0; i < r%4; i++ {
				if items.Len() > 1 {
					items.WriteByte(',')
				}
				fmt.Fprintf(&items, `{"id":"r%02d-li%d","return_id":"r%02d","sku":"sku %d-%d"}`, r, i, r, r, i)
			}
		}
		items.WriteByte(']')
		h.call("POST", "/v1/return_line_items", items.String()).want(201)
		paths := []string{
			"/v1/returns?expand=return_line_items",
			"/v1/returns?expand=return_line_items&limit=7&order_by=-id",
			"/v1/returns?expand=return_line_items&fields=description&filter[id][gte]=r10",
			"/v1/return_line_items?expand=return",
			"/v1/returns/r07?expand=return_line_items",
		}
		get := func(path string) (int, string) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", "Bearer "+h.token)
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, req)
			return w.Code, w.Body.String()
		}
		alone := make([]string, len(paths))
		for i, p := range paths {
			code, body := get(p)
			if code != 200 {
				t.Fatalf("%s: %d %s", p, code, body)
			}
			alone[i] = body
		}
		var wg sync.WaitGroup
		errs := make(chan string, 8*len(paths))
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < 25; n++ {
					i := (g + n) % len(paths)
					if code, body := get(paths[i]); code != 200 || body != alone[i] {
						errs <- fmt.Sprintf("%s answered at once with others (%d):\n%s\nalone:\n%s", paths[i], code, body, alone[i])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
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

// exportGet sends a list request with an Accept header to a real server.
func exportGet(t *testing.T, srv *httptest.Server, token, path, accept string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// An export streams every matching record, past any page size, with
// fields honoured, as NDJSON or CSV.
func TestExports(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		if _, err := h.db.Exec(ctx, `INSERT INTO teams (id, name, created_at) VALUES (2, 'spare', CURRENT_TIMESTAMP)`); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2500; i++ {
			sku := fmt.Sprintf("sku,%d \"q\"", i)
			if _, err := h.db.Exec(ctx, `INSERT INTO packing_list_items (id, team_id, sku, quantity) VALUES (?, 1, ?, ?)`,
				fmt.Sprintf("e%05d", i), sku, i%7); err != nil {
				t.Fatal(err)
			}
		}
		srv := httptest.NewServer(h.srv.Handler())
		defer srv.Close()

		resp := exportGet(t, srv, h.token, "/v1/packing_list_items?filter[quantity][ne]=3&order_by=-quantity", "application/x-ndjson")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
			t.Fatalf("%d %s", resp.StatusCode, resp.Header)
		}
		want := 2500 - 2500/7
		if 3 < 2500%7 {
			want--
		}
		lines, last := 0, int64(99)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("line %d: %v", lines, err)
			}
			q := int64(rec["quantity"].(float64))
			if q == 3 || q > last {
				t.Fatalf("line %d: quantity %d after %d", lines, q, last)
			}
			last = q
			lines++
		}
		resp.Body.Close()
		if sc.Err() != nil || lines != want {
			t.Fatalf("%d lines (%v), want %d", lines, sc.Err(), want)
		}

		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?fields=quantity,sku", "text/csv")
		rows, err := csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil || len(rows) != 2501 {
			t.Fatalf("%d rows: %v", len(rows), err)
		}
		if strings.Join(rows[0], "|") != "id|version|quantity|sku" || rows[1][3] != `sku,0 "q"` || rows[1][2] != "0" {
			t.Fatalf("CSV: %v %v", rows[0], rows[1])
		}

		// Media types are case-insensitive (RFC 9110 §8.3.1).
		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?fields=sku", "TEXT/CSV")
		if rows, err := csv.NewReader(resp.Body).ReadAll(); err != nil || len(rows) != 2501 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("Accept: TEXT/CSV: %s, %d rows (%v)", resp.Header.Get("Content-Type"), len(rows), err)
		}
		resp.Body.Close()

		// A JSON client gets pages, whatever else it also accepts.
		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?limit=3", "application/json, text/csv;q=0.5")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"paging"`) {
			t.Fatalf("JSON preferred: %.200s", body)
		}
		// Other teams' records never stream.
		other := h.newToken("other", auth.Read, "spare")
		resp = exportGet(t, srv, other, "/v1/packing_list_items", "application/x-ndjson")
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) != 0 {
			t.Fatalf("another team's export: %d %.100s", resp.StatusCode, body)
		}
	})
}

// A failure midway through an export is never mistaken for a whole file:
// NDJSON ends with an error line, and the body is cut off unterminated.
// The failure: a row the second page cannot read (a date-time the driver
// refuses), placed last.
func TestAnExportFailingMidwayIsCutOff(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			h := newHarness(t, d, testConfig())
			ctx := context.Background()
			for i := 0; i < 1500; i++ {
				if _, err := h.db.Exec(ctx, `INSERT INTO users (id, team_id) VALUES (?, 1)`, "u"+strconv.Itoa(10000+i)); err != nil {
					t.Fatal(err)
				}
			}
			bad := `INSERT INTO users (id, team_id, last_seen) VALUES ('zz', 1, 'garbage')`
			if d == "postgres" {
				bad = `INSERT INTO users (id, team_id, last_seen) VALUES ('zz', 1, 'infinity')`
			}
			if _, err := h.db.Exec(ctx, bad); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h.srv.Handler())
			defer srv.Close()
			for _, accept := range []string{"application/x-ndjson", "text/csv"} {
				resp := exportGet(t, srv, h.token, "/v1/users", accept)
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || err == nil {
					t.Fatalf("%s: %d, the stream ended cleanly after a failure (%v)", accept, resp.StatusCode, err)
				}
				lines := strings.Split(strings.TrimSpace(string(body)), "\n")
				last := lines[len(lines)-1]
				if accept == "application/x-ndjson" && !strings.HasPrefix(last, `{"error":{"type":"/docs#problem-internal"`) {
					t.Fatalf("no error line at the end: %.300s", last)
				}
				if len(lines) < 1000 {
					t.Fatalf("%s: only %d lines came before the failure", accept, len(lines))
				}
			}
			if !strings.Contains(h.logs.String(), `"level":"ERROR"`) {
				t.Fatal("a failed export is logged as an error")
			}
		})
	}
}

// An expanded parent answers at most 1,000 children, the first by id,
// alone and on a page beside parents with fewer, whose children all come:
// when the parent's extra children fit the statement's bound (on SQLite, a
// page's parents may have 1,000 each), and when they do not.
func TestExpandAnswersAtMost1000Children(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true
		h.call("POST", "/v1/returns", `[{"id":"few"},{"id":"many"},{"id":"more"}]`).want(201)
		h.call("POST", "/v1/return_line_items", `[{"id":"f-1","return_id":"few"},{"id":"f-2","return_id":"few"},{"id":"m-1","return_id":"more"}]`).want(201)
		for from := 0; from < 2000; from += 1000 {
			var b strings.Builder
			b.WriteByte('[')
			for i := from; i < from+1000; i++ {
				if i > from {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"id":"li-%04d","return_id":"many"}`, i)
			}
			b.WriteByte(']')
			h.call("POST", "/v1/return_line_items", b.String()).want(201)
		}
		h.call("POST", "/v1/return_line_items", `{"id":"li-2000","return_id":"many"}`).want(201)
		want := map[string][]string{"few": {"f-1", "f-2"}, "many": {"li-0000", "li-0999"}, "more": {"m-1"}}
		check := func(what string, ret map[string]any) {
			t.Helper()
			items := ret["expand"].(map[string]any)["return_line_items"].([]any)
			var first, last any
			if len(items) > 0 {
				first, last = items[0].(map[string]any)["id"], items[len(items)-1].(map[string]any)["id"]
			}
			w := want[ret["id"].(string)]
			n := len(w)
			if ret["id"] == "many" {
				n = 1000
			}
			if len(items) != n || first != w[0] || last != w[len(w)-1] {
				t.Errorf("%s, %s: %d children, first %v, last %v", what, ret["id"], len(items), first, last)
			}
		}
		check("alone", h.call("GET", "/v1/returns/many?expand=return_line_items&fields=id", "").want(200).obj())
		for _, q := range []string{"", "&filter[id][in]=many,more"} {
			before := h.db.Statements()
			h.call("GET", "/v1/returns?fields=id"+q, "").want(200)
			plain := h.db.Statements() - before
			before = h.db.Statements()
			page := h.call("GET", "/v1/returns?expand=return_line_items&fields=id"+q, "").want(200).list("returns")
			if n := h.db.Statements() - before; q == "" && n != plain+1 {
				t.Errorf("the page expanding a parent of 2,001 children ran %d statements, %d without", n, plain)
			}
			for _, r := range page {
				check("on the page "+q, r.(map[string]any))
			}
		}
	})
}

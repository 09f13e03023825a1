package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

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
		// A search indexes what the creates queued for SQLite's search index
		// now, not in the checkpointer's batch while a read below is counted.
		h.call("GET", "/v1/returns?q=settle", "").want(200)
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
			h.call("POST", "/v1/return_line_items", jsonArray(1000, func(i int) string {
				return fmt.Sprintf(`{"id":"li-%04d","return_id":"many"}`, from+i)
			})).want(201)
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

package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestMalformedBodies(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"email": "a@b.c",}`).problem(400, "invalid_json").mentions("at byte offset 18")
		h.call("POST", "/v1/customers", `{"email": "a@b.c"`).problem(400, "invalid_json").mentions("at byte offset 17")
		// An array is a bulk create on POST /v1/<plural>, and nowhere else.
		h.call("PATCH", "/v1/customers/c1", `[{"email":"a"}]`).problem(400, "invalid_request").mentions("must be a JSON object")
		h.call("POST", "/v1/customers", `{"email":"a","email":"b"}`).problem(400, "invalid_request", "email").mentions("more than once")
		h.call("POST", "/v1/customers", "{\"email\":\"\xff\"}").problem(400, "invalid_json").mentions("UTF-8")
		// Valid JSON nested past what the reader follows is not malformed:
		// an invalid request that says so.
		deep := strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)
		h.call("POST", "/v1/suppliers", `{"properties":`+deep+`}`).problem(400, "invalid_request").mentions("more than 64 levels deep")
		// Nothing was written by any of them.
		if n := len(h.call("GET", "/v1/customers", "").want(200).list("customers")); n != 0 {
			t.Fatalf("%d customers were stored from bad bodies", n)
		}
	})
}

func TestMediaTypesAndSizes(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Type", "text/plain").problem(415, "unsupported_media_type")
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Type", "").problem(415, "unsupported_media_type").mentions("Content-Type")
		// A charset but UTF-8's, and any coding, are not read as JSON.
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Type", "application/json; charset=iso-8859-1").problem(415, "unsupported_media_type").mentions("iso-8859-1")
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Encoding", "br").problem(415, "unsupported_media_type").mentions("br")
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Type", "application/json; charset=UTF-8").want(201)
		h.call("POST", "/v1/customers", `{"email":"a"}`, "Content-Type", "application/json; charset=utf-8").want(201)
		h.call("POST", "/v1/customers", `{"email":"b"}`, "Content-Type", "application/merge-patch+json").want(201)
		// An empty body is {} and needs no Content-Type.
		h.call("POST", "/v1/customers", "", "Content-Type", "").want(201)
		big := `{"email":"` + strings.Repeat("x", 1<<20) + `"}`
		h.call("POST", "/v1/customers", big).problem(413, "payload_too_large")
		// 415 is judged before 413.
		h.call("POST", "/v1/customers", big, "Content-Type", "text/csv").problem(415, "unsupported_media_type")
	})
}

func TestUnknownAndInvalidMembers(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// A body of a hundred thousand unknown members is answered with the
		// first 100 (a problem lists no more), as a create, a bulk create and
		// a list's filter; nothing is written.
		var many strings.Builder
		many.WriteString("{")
		for i := range 90000 {
			if i > 0 {
				many.WriteString(",")
			}
			fmt.Fprintf(&many, `"m%d":1`, i)
		}
		many.WriteString("}")
		h.unchecked = true // the document's validator would take seconds over such bodies
		for _, c := range []struct{ method, body, first string }{
			{"POST", many.String(), "m0"},
			{"POST", "[" + many.String() + "]", "[0].m0"},
			{"GET", `{"filter":` + many.String() + `}`, "filter.m0"},
		} {
			r := h.call(c.method, "/v1/customers", c.body).problem(400, "invalid_request", c.first)
			if n := len(r.list("errors")); n != 100 || !strings.Contains(r.obj()["detail"].(string), "more than 100") {
				t.Fatalf("%s of 90,000 unknown members: %d errors listed, %v", c.method, n, r.obj()["detail"])
			}
		}
		h.unchecked = false
		if n := count(t, h.db, "customers"); n != 0 {
			t.Fatalf("%d customers written by refused bodies", n)
		}
		h.call("POST", "/v1/customers", `{"first_name":"Ann"}`).
			problem(400, "invalid_request", "first_name").mentions(`did you mean \"firstName\"`)
		// Every problem is reported at once.
		r := h.call("POST", "/v1/users", `{"active":"maybe","birthday":"tomorrow","last_seen":"noon","nickname":"x"}`).
			problem(400, "invalid_request", "active", "birthday", "last_seen", "nickname")
		if n := len(r.list("errors")); n != 4 {
			t.Fatalf("want 4 members at fault, got %d: %s", n, r.Body)
		}
		h.call("POST", "/v1/packing_list_items", `{"quantity":2.5}`).problem(400, "invalid_request", "quantity").mentions("whole number")
		// -0 is 0 on both databases (SQLite would drop its sign, PostgreSQL
		// keep it), in what is stored and in filters.
		if q := h.call("POST", "/v1/bill_of_materials_line_items", `{"id":"z","quantity":-0}`).want(201).at("quantity"); q != json.Number("0") {
			t.Fatalf("-0 stored as %v", q)
		}
		if items := h.call("GET", "/v1/bill_of_materials_line_items?filter[quantity]=0", "").want(200).list("bill_of_materials_line_items"); len(items) != 1 {
			t.Fatalf("filter quantity=0 found %d records", len(items))
		}
		h.call("POST", "/v1/packing_list_items", `{"quantity":"12"}`).want(201)
		h.call("POST", "/v1/customers", `{"email":true}`).problem(400, "invalid_request", "email").mentions("must be a string")
		h.call("POST", "/v1/customers", `{"id":"a/b"}`).problem(400, "invalid_request", "id")
		h.call("POST", "/v1/customers", `{"id":""}`).problem(400, "invalid_request", "id")
		h.call("POST", "/v1/customers", `{"id":"`+strings.Repeat("i", 256)+`"}`).problem(400, "invalid_request", "id")
		h.call("POST", "/v1/customers", `{"id":"c-1"}`).want(201)
		h.call("POST", "/v1/customers", `{"id":"c-1"}`).problem(409, "conflict", "id")
		h.call("PATCH", "/v1/customers/c-1", `{"id":"c-2"}`).problem(400, "invalid_request", "id")
		h.call("PATCH", "/v1/customers/nope", `{"email":"x"}`).problem(404, "not_found")
		h.call("POST", "/v1/customers?email=x", `{}`).problem(400, "invalid_request").mentions("query parameters")
	})
}

func TestChildrenNamingMissingParents(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		cases := map[string]string{
			"/v1/return_line_items":     "return_id",
			"/v1/work_order_line_items": "work_order_number",
			"/v1/warranty_line_items":   "warranty_id",
			"/v1/packing_list_items":    "packing_list",
			"/v1/channel_threads":       "case_id",
		}
		for path, member := range cases {
			h.call("POST", path, `{"`+member+`":"ghost"}`).problem(400, "invalid_request", member).mentions(`no `, `\"ghost\"`)
			if n := len(h.call("GET", path, "").want(200).list(strings.TrimPrefix(path, "/v1/"))); n != 0 {
				t.Fatalf("%s: a child of a missing parent was stored", path)
			}
		}
		// Pointing an existing child at a missing parent is refused too.
		h.call("POST", "/v1/packing_lists", `{"id":"pl-1"}`).want(201)
		h.call("POST", "/v1/packing_list_items", `{"id":"pi-1","packing_list":"pl-1"}`).want(201)
		h.call("PATCH", "/v1/packing_list_items/pi-1", `{"packing_list":"ghost"}`).problem(400, "invalid_request", "packing_list")
		h.call("PATCH", "/v1/packing_list_items/pi-1", `{"packing_list":null}`).want(200)
	})
}

func TestAnInvalidLineItemStoresNothing(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		body := `{"id":"wo-1","number":"W","work_order_line_items":[{"id":"ok-1","part_name":"fine"},{"id":"bad","total_quantity":"lots"}]}`
		h.call("POST", "/v1/work_orders", body).problem(400, "invalid_request", "work_order_line_items[1].total_quantity")
		h.call("GET", "/v1/work_orders/", `{"work_order_line_items":[{"total_quantity":"lots"}]}`).
			problem(400, "invalid_request", "work_order_line_items[0].total_quantity")
		// A line item that fails in the database (a taken id) rolls back the
		// work order and the items before it.
		h.call("POST", "/v1/work_order_line_items", `{"id":"taken"}`).want(201)
		body = `{"id":"wo-2","work_order_line_items":[{"id":"ok-2"},{"id":"taken"}]}`
		h.call("POST", "/v1/work_orders", body).problem(409, "conflict", "work_order_line_items[1].id")
		h.call("POST", "/v1/work_orders", `[{"id":"wo-4"},{"id":"wo-5","work_order_line_items":[{"id":"taken"}]}]`).
			problem(409, "conflict", "[1].work_order_line_items[0].id")
		// An id given twice among them is the body's fault, as in a bulk
		// create.
		h.call("POST", "/v1/work_orders", `{"id":"wo-6","work_order_line_items":[{"id":"twice"},{"id":"twice"}]}`).
			problem(400, "invalid_request", "work_order_line_items[1].id").mentions("repeats [0].id")
		h.call("GET", "/v1/work_orders/wo-1", "").problem(404, "not_found")
		h.call("GET", "/v1/work_orders/wo-6", "").problem(404, "not_found")
		h.call("GET", "/v1/work_orders/wo-4", "").problem(404, "not_found")
		h.call("GET", "/v1/work_orders/wo-2", "").problem(404, "not_found")
		items := h.call("GET", "/v1/work_order_line_items", "").want(200).list("work_order_line_items")
		if len(items) != 1 {
			t.Fatalf("only the item created alone may exist: %v", items)
		}
		h.call("GET", "/v1/work_orders/", `{"work_order_line_items":[{"colour":"red"}]}`).
			problem(400, "invalid_request", "work_order_line_items[0].colour")
		h.call("GET", "/v1/work_orders/", `{"work_order_line_items":{"id":"x"}}`).
			problem(400, "invalid_request", "work_order_line_items")
		// Line items are given only when creating.
		h.call("POST", "/v1/work_orders", `{"id":"wo-3"}`).want(201)
		h.call("PATCH", "/v1/work_orders/wo-3", `{"work_order_line_items":[]}`).problem(400, "invalid_request", "work_order_line_items")
		// The work order's own id taken is the work order's id.
		h.call("POST", "/v1/work_orders", `{"id":"wo-3","work_order_line_items":[{"id":"fresh"}]}`).problem(409, "conflict", "id")
	})
}

func TestListParameters(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for i, name := range []string{"delta", "alpha", "charlie", "bravo", "echo"} {
			body := fmt.Sprintf(`{"id":"v-%d","vendorName":%q,"rating":%q}`, i, name, map[bool]string{true: "high", false: "low"}[i%2 == 0])
			h.call("POST", "/v1/vendors", body).want(201)
		}
		h.call("POST", "/v1/vendors", `{"id":"v-9"}`).want(201) // vendorName null
		names := func(r *response) []any {
			var out []any
			for _, v := range r.list("vendors") {
				out = append(out, v.(map[string]any)["vendorName"])
			}
			return out
		}
		r := h.call("GET", "/v1/vendors", `{"order_by":"vendorName"}`).want(200)
		if got := fmt.Sprint(names(r)); got != "[alpha bravo charlie delta echo <nil>]" {
			t.Fatalf("ascending, nulls last: %s", got)
		}
		r = h.call("GET", "/v1/vendors", `{"order_by":"vendorName","order_direction":"Desc"}`).want(200)
		if got := fmt.Sprint(names(r)); got != "[<nil> echo delta charlie bravo alpha]" {
			t.Fatalf("descending, nulls first: %s", got)
		}
		// A parameter given twice is refused, as a member twice in a body:
		// picking one would be a guess.
		h.call("GET", "/v1/vendors?limit=1&limit=2", "").problem(400, "invalid_request", "limit").mentions("more than once")
		h.call("GET", "/v1/vendors?count=exact&count=estimated", "").problem(400, "invalid_request", "count")
		h.call("GET", "/v1/vendors?filter[vendorName]=a&filter[vendorName]=b", "").problem(400, "invalid_request", "filter.vendorName")
		h.call("GET", "/v1/vendors?filter[vendorName][in]=a&filter[vendorName][in]=b", "").problem(400, "invalid_request", "filter.vendorName.in")
		h.call("GET", "/v1/vendors?filter[vendorName][in][0]=a&filter[vendorName][in][0]=b", "").problem(400, "invalid_request", "filter.vendorName.in[0]")
		h.call("GET", "/v1/customers/c1?fields=id&fields=email", "").problem(400, "invalid_request", "fields")
		r = h.call("GET", "/v1/vendors?order_by=vendorName&limit=2&offset=2", "").want(200)
		if got := fmt.Sprint(names(r)); got != "[charlie delta]" || r.at("paging", "has_more") != true {
			t.Fatalf("a page in the query string: %s %s", got, r.Body)
		}
		r = h.call("GET", "/v1/vendors?limit=2", `{"order_by":"vendorName","limit":3,"offset":3}`).want(200)
		if got := fmt.Sprint(names(r)); got != "[delta echo <nil>]" || r.at("paging", "has_more") != false || r.at("paging", "limit") != json.Number("3") {
			t.Fatalf("the body wins over the query: %s %s", got, r.Body)
		}
		r = h.call("GET", "/v1/vendors", `{"filter":{"rating":"high"},"order_by":"vendorName"}`).want(200)
		if got := fmt.Sprint(names(r)); got != "[charlie delta echo]" {
			t.Fatalf("filter: %s", got)
		}
		r = h.call("GET", "/v1/vendors?filter[rating]=low&filter[vendorName]=alpha", "").want(200)
		if got := fmt.Sprint(names(r)); got != "[alpha]" {
			t.Fatalf("filters in the query string: %s", got)
		}
		if got := h.call("GET", "/v1/vendors", `{"filter":{"vendorName":null}}`).want(200).list("vendors"); len(got) != 1 {
			t.Fatalf("filter by null: %v", got)
		}
		bad := map[string]string{
			`{"limit":0}`:                    "limit",
			`{"limit":1001}`:                 "limit",
			`{"limit":"ten"}`:                "limit",
			`{"limit":1.5}`:                  "limit",
			`{"offset":-1}`:                  "offset",
			`{"order_direction":"up"}`:       "order_direction",
			`{"order_by":"vendor_name"}`:     "order_by",
			`{"filter":["rating"]}`:          "filter",
			`{"filter":{"ratting":"high"}}`:  "filter.ratting",
			`{"filter":{"is_active":"yes"}}`: "filter.is_active",
			`{"limt":10}`:                    "limt",
		}
		for body, member := range bad {
			h.call("GET", "/v1/vendors", body).problem(400, "invalid_request", member)
		}
		h.call("GET", "/v1/vendors", `{"order_by":"vendor_name"}`).mentions(`did you mean \"vendorName\"`)
		h.call("GET", "/v1/vendors?limt=1", "").problem(400, "invalid_request", "limt").mentions("query parameter")
		r = h.call("GET", "/v1/vendors", `{"limit":"1","offset":"0","order_direction":"DESC"}`).want(200)
		if len(r.list("vendors")) != 1 || r.at("paging", "has_more") != true {
			t.Fatalf("the sample's list body: %s", r.Body)
		}
	})
}

func TestDeleteCascades(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("PUT", "/v1/returns/", `{"id":"r-1"}`).want(201)
		h.call("PUT", "/v1/return_line_items/li-1", `{"return_id":"r-1"}`).want(201)
		h.call("POST", "/v1/work_orders", `{"id":"wo-1","work_order_line_items":[{"id":"wli-1"}]}`).want(201)
		h.call("POST", "/v1/packing_lists", `{"id":"pl-1"}`).want(201)
		h.call("POST", "/v1/packing_list_items", `{"id":"pli-1","packing_list":"pl-1"}`).want(201)
		h.call("POST", "/v1/cases", `{"id":"c-1"}`).want(201)
		h.call("POST", "/v1/channel_threads", `{"id":"t-1","case_id":"c-1"}`).want(201)
		for parent, child := range map[string]string{
			"/v1/returns/r-1":        "/v1/return_line_items/li-1",
			"/v1/work_orders/wo-1":   "/v1/work_order_line_items/wli-1",
			"/v1/packing_lists/pl-1": "/v1/packing_list_items/pli-1",
			"/v1/cases/c-1":          "/v1/channel_threads/t-1",
		} {
			r := h.call("DELETE", parent, "").want(200)
			if r.at("deleted") != true {
				t.Fatalf("delete %s: %s", parent, r.Body)
			}
			h.call("GET", child, "").problem(404, "not_found")
		}
	})
}

func TestRouterErrors(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("GET", "/v1/nothing-here", "").problem(404, "not_found")
		h.call("GET", "/v1/users/a/b", "").problem(404, "not_found")
		r := h.call("PATCH", "/v1/warranty", "").problem(405, "method_not_allowed")
		if r.Header.Get("Allow") != "DELETE" {
			t.Fatalf("Allow: %q", r.Header.Get("Allow"))
		}
		r = h.call("POST", "/v1/customers/c-1", "").problem(405, "method_not_allowed")
		if allow := r.Header.Get("Allow"); !strings.Contains(allow, "DELETE") || !strings.Contains(allow, "PATCH") || !strings.Contains(allow, "GET") {
			t.Fatalf("Allow: %q", allow)
		}
		// A trailing slash is a different route, never a redirect.
		h.call("GET", "/v1/customers/", "").problem(404, "not_found")
		if allow := r.Header.Get("Allow"); !strings.Contains(allow, "HEAD") {
			t.Fatalf("a GET route answers HEAD too; Allow: %q", allow)
		}
	})
}

// Every GET route answers HEAD: the status and headers of the GET, its
// length included, without the body.
func TestHeadIsGetWithoutTheBody(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"c1","email":"a@example.com"}`).want(201)
		h.call("HEAD", "/v1/customers/c1", "").want(200)
		ts := startServer(t, h.srv)
		for _, path := range []string{"/v1/customers/c1", "/v1/customers?limit=5", "/v1/customers/c1/history", "/healthz"} {
			gs, gh, gb := send(t, ts, h.token, "GET", path, "")
			hs, hh, hb := send(t, ts, h.token, "HEAD", path, "")
			if hs != gs || hb != "" || hh.Get("Content-Length") != fmt.Sprint(len(gb)) || hh.Get("ETag") != gh.Get("ETag") ||
				hh.Get("Content-Type") != gh.Get("Content-Type") {
				t.Fatalf("HEAD %s: %d %v %q; GET: %d %v (%d bytes)", path, hs, hh, hb, gs, gh, len(gb))
			}
		}
		if s, hh, b := send(t, ts, h.token, "HEAD", "/v1/customers", "", "Accept", "application/x-ndjson"); s != 200 || b != "" ||
			!strings.HasPrefix(hh.Get("Content-Type"), "application/x-ndjson") {
			t.Fatalf("HEAD of an export: %d %v %q", s, hh, b)
		}
		if s, _, b := send(t, ts, h.token, "HEAD", "/v1/customers/nope", ""); s != 404 || b != "" {
			t.Fatalf("HEAD of a missing record: %d %q", s, b)
		}
		if s, _, _ := send(t, ts, "rk_wrong", "HEAD", "/v1/customers/c1", ""); s != 401 {
			t.Fatalf("HEAD without a valid token: %d", s)
		}
		// The event stream's HEAD answers its headers and ends: no stream
		// is held open for a client that reads none.
		done := make(chan struct{})
		go func() {
			defer close(done)
			if s, hh, _ := send(t, ts, h.token, "HEAD", "/v1/events/stream", ""); s != 200 || hh.Get("Content-Type") != "text/event-stream" {
				t.Errorf("HEAD of the stream: %d %v", s, hh)
			}
			// The next request on the connection is answered: the
			// server is not still streaming to it.
			if s, _, _ := send(t, ts, h.token, "GET", "/v1/customers/c1", ""); s != 200 {
				t.Errorf("the request after: %d", s)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("HEAD of the event stream did not end")
		}
		// HEAD is safe: where GET without an id creates a record (the
		// get-or-create routes), HEAD is a 405 naming GET, and creates
		// nothing; with an id it reads, as GET does.
		h.call("POST", "/v1/work_orders", `{"id":"wo1"}`).want(201)
		for _, path := range []string{"/v1/work_orders/", "/v1/packing_lists/", "/v1/bill_of_materials_line_items/", "/v1/return_line_item"} {
			if s, hh, b := send(t, ts, h.token, "HEAD", path, ""); s != 405 || hh.Get("Allow") != "GET" || b != "" {
				t.Fatalf("HEAD %s: %d %v %q", path, s, hh, b)
			}
			h.call("HEAD", path, "").problem(405, "method_not_allowed")
		}
		for _, table := range []string{"work_orders", "packing_lists", "bill_of_materials_line_items", "return_line_items"} {
			if want, n := map[string]int{"work_orders": 1}[table], count(t, h.db, table); n != want {
				t.Fatalf("%d %s after HEAD requests, want %d", n, table, want)
			}
		}
		h.call("HEAD", "/v1/work_orders/wo1", "").want(200)
		h.call("HEAD", "/v1/work_orders/nope", "").want(404)
	})
}

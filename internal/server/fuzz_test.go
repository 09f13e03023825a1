package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"records/internal/dbtest"
)

// fuzzRoutes are the routes a fuzzed request goes to: a method and a path,
// where {id} is replaced by the fuzzed id.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/v1/customers"}, {"PATCH", "/v1/customers/{id}"}, {"GET", "/v1/customers"}, {"GET", "/v1/customers/{id}"},
	{"PUT", "/v1/return_line_items/{id}"}, {"POST", "/v1/return_line_items"}, {"PUT", "/v1/returns/"},
	{"POST", "/v1/suppliers"}, {"POST", "/v1/users"}, {"GET", "/v1/users/{id}"}, {"DELETE", "/v1/customers/{id}"},
	{"GET", "/v1/events"}, {"GET", "/v1/customers/{id}/history"}, {"POST", "/v1/webhooks"}, {"PATCH", "/v1/webhooks/{id}"},
	{"POST", "/v1/packing_list_items"}, {"GET", "/v1/work_orders"}, {"POST", "/v1/return/{id}/reopen"},
	// Totals, the trash and search: appended, so that the committed
	// corpus's first routes keep their numbers.
	{"GET", "/v1/returns/aggregate"}, {"POST", "/v1/users/aggregate"}, {"POST", "/v1/warranties/{id}/restore"},
	{"POST", "/v1/customers/{id}/revert"}, {"DELETE", "/v1/warranties/{id}"}, {"GET", "/v1/returns"},
	{"GET", "/v1/packing_list_items/aggregate"},
}

// FuzzRequests sends fuzzed requests — route, id, query string, body and
// the headers a client controls — through the real server on both
// databases: every answer is a success or a 4xx problem, never a 5xx.
func FuzzRequests(f *testing.F) {
	seeds := []struct {
		route                                 uint8
		id, query, body, ifMatch, key, accept string
	}{
		{0, "", "", `{"email":"a@example.com"}`, "", "", ""},
		{0, "", "", `{"email":"a\u0000b"}`, "", "", ""},
		{0, "", "", `[{"id":"x"},{"id":"x"}]`, "", "k1", ""},
		{1, "c1", "", `{"email":"\ud800"}`, `"1"`, "", ""},
		{2, "", "filter[email][contains]=%00&order_by=-email&limit=1001", "", "", "", ""},
		{2, "", "filter%5Bemail%5D=%ff", "", "", "", "text/csv"},
		{3, "%ff%fe", "", "", "", "", ""},
		{4, "li-1", "", `{"price":"1e400","sku":7}`, "*", "", ""},
		{5, "", "", `{"return_id":"nope","quantity":-9223372036854775809}`, "", "", ""},
		{6, "", "", `{"return_id":"r1","return":{"status":"open"}}`, "", "", ""},
		{7, "", "", `{"properties":{"a":"\u0000"},"mapping":{"k":1}}`, "", "", ""},
		{8, "", "", `{"birthday":"2026-02-30","last_seen":"x","active":"yes"}`, "", "", ""},
		{11, "", "cursor=abc&filter[type][in]=,", "", "", "", ""},
		{13, "", "", `{"url":"http://[::1]/","events":["*"]}`, "", "", ""},
		{15, "", "", `{"quantity":1e19,"arrived":null}`, "", "", ""},
		{16, "", "expand=work_order_line_items&fields=id,nope&count=estimated", "", "", "", "application/x-ndjson"},
		{17, "r1", "", "", "", "", ""},
		{18, "", "group_by=status,created_at:week&metrics=count,sum:nope,avg:status&order_by=-count&limit=0", "", "", "", ""},
		{19, "", "", `{"group_by":["last_seen:month"],"metrics":["max:email"],"filter":{"email":{"contains":"%"}},"q":"a"}`, "", "", ""},
		{20, "w-1", "", "", `"1"`, "", ""},
		{21, "c1", "", `{"version":0}`, "", "", ""},
		{22, "w-1", "permanent=yes", "", "", "", ""},
		{23, "", "q=%22a&trashed=only&order_by=-_rank&fields=id&count=exact", "", "", "", "text/csv"},
		{24, "", "group_by=sku&metrics=avg:quantity,min:created_at&q=x&filter[quantity][gt]=1e400", "", "", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.route, s.id, s.query, s.body, s.ifMatch, s.key, s.accept)
	}
	var hs []*harness
	for _, d := range dbtest.Dialects {
		h := newHarness(f, d, testConfig())
		h.unchecked = true
		hs = append(hs, h)
	}
	f.Fuzz(func(t *testing.T, route uint8, id, query, body, ifMatch, key, accept string) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		path := strings.ReplaceAll(rt.path, "{id}", id)
		if query != "" {
			path += "?" + query
		}
		for _, h := range hs {
			req, err := http.NewRequest(rt.method, "http://records.test"+path, strings.NewReader(body))
			if err != nil {
				return // not a request a client can send
			}
			req.Header.Set("Authorization", "Bearer "+h.token)
			req.Header.Set("Content-Type", "application/json")
			for name, v := range map[string]string{"If-Match": ifMatch, "Idempotency-Key": key, "Accept": accept} {
				if v != "" {
					req.Header[name] = []string{v}
				}
			}
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, req)
			if w.Code >= 500 {
				t.Fatalf("%s %s %q (If-Match %q, Idempotency-Key %q, Accept %q) on %s: %d %s",
					rt.method, path, body, ifMatch, key, accept, h.db.Dialect, w.Code, w.Body)
			}
			if w.Code >= 400 && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
				t.Fatalf("%s %s: %d without a problem: %s", rt.method, path, w.Code, w.Body)
			}
		}
	})
}

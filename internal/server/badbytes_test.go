package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// Text a database cannot keep — NUL, invalid UTF-8, unpaired surrogates —
// and numbers out of range are a 400 naming the member, or a 404 for an
// id in a path, on both databases: never stored mangled, never a 500.
func TestBadBytesAre4xx(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for _, body := range []string{
			`{"email":"a\u0000b"}`, `{"email":"\ud800x"}`, `{"email":"x\udc00"}`, `{"email":"\ud800\u0041"}`,
			`{"email":"\ud800"}`, `{"email":"a\\\u0000"}`,
		} {
			h.call("POST", "/v1/customers", body).problem(400, "invalid_request", "email")
		}
		// A pair is a character, and an escaped backslash before u0000 is text.
		if r := h.call("POST", "/v1/customers", `{"id":"pair","email":"\ud83d\ude00 \\u0000"}`).want(201); r.obj()["email"] != "😀 \\u0000" {
			t.Fatalf("stored %q", r.obj()["email"])
		}
		h.call("POST", "/v1/suppliers", `{"properties":{"k":"a\u0000"}}`).problem(400, "invalid_request", "properties")
		h.call("POST", "/v1/suppliers", `{"mapping":{"k":"\udfff"}}`).problem(400, "invalid_request", "mapping")
		h.call("POST", "/v1/customers", `{"id":"a\u0000b"}`).problem(400, "invalid_request", "id")
		h.call("POST", "/v1/customers", "{\"email\":\"\xff\xfe\"}").problem(400, "invalid_json")
		h.call("POST", "/v1/packing_list_items", `{"quantity":-9223372036854775809}`).problem(400, "invalid_request", "quantity")
		h.call("POST", "/v1/packing_list_items", `{"quantity":9223372036854775808}`).problem(400, "invalid_request", "quantity")
		h.call("POST", "/v1/packing_list_items", `{"quantity":-9.3e18}`).problem(400, "invalid_request", "quantity")
		if r := h.call("POST", "/v1/packing_list_items", `{"quantity":-9223372036854775808}`).want(201); r.obj()["quantity"] == nil {
			t.Fatal("the least 64-bit integer is in range")
		}
		h.call("GET", "/v1/customers?filter%5Bemail%5D=a%00b", "").problem(400, "invalid_request", "filter.email")
		h.call("GET", "/v1/customers?filter%5Bemail%5D=%ff%fe", "").problem(400, "invalid_request", "filter.email")
		for _, path := range []string{"/v1/customers/%ff%fe", "/v1/customers/%ff%fe/history"} {
			if r := h.call("GET", path, ""); r.Status != 404 && r.Status != 400 {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
		}
		h.call("PATCH", "/v1/customers/%ff%fe", `{"email":"x"}`).problem(400, "invalid_request")
		h.call("DELETE", "/v1/webhooks/%ff%fe", "").problem(404, "not_found")
		var q strings.Builder
		q.WriteString("limit=abc")
		for i := range 10001 {
			fmt.Fprintf(&q, "&x%d=1", i)
		}
		h.unchecked = true
		h.call("GET", "/v1/customers?"+q.String(), "").problem(400, "invalid_request")
		h.call("GET", "/v1/customers/pair?"+q.String(), "").problem(400, "invalid_request")
		h.call("GET", "/v1/events?"+q.String(), "").problem(400, "invalid_request")
		h.call("GET", "/v1/customers?a=1;b=2", "").problem(400, "invalid_request")
	})
}

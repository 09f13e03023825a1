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
		for _, op := range []string{"in", "nin"} {
			h.call("GET", "/v1/customers?filter%5Bemail%5D%5B"+op+"%5D=b%00", "").problem(400, "invalid_request", "filter.email."+op)
			h.call("GET", "/v1/customers?filter%5Bemail%5D%5B"+op+"%5D=a,b%00", "").problem(400, "invalid_request", "filter.email."+op)
		}
		// An id in a path that no record could have (invalid UTF-8, a NUL,
		// a C1 control, 256 bytes) is no record's: 404; a PUT would create
		// it, so there the id is what is wrong: 400.
		for _, id := range []string{"%ff%fe", "a%00b", "%C2%85", strings.Repeat("x", 256)} {
			for _, path := range []string{"/v1/customers/" + id, "/v1/customers/" + id + "/history"} {
				h.call("GET", path, "").problem(404, "not_found")
			}
			h.call("PATCH", "/v1/customers/"+id, `{"email":"x"}`).problem(404, "not_found")
			h.call("DELETE", "/v1/customers/"+id, "").problem(404, "not_found")
			h.call("PUT", "/v1/return_line_items/"+id, `{"sku":"x"}`).problem(400, "invalid_request", "id")
		}
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

// An object member keeps the text the client sent (compacted), on both
// databases: PostgreSQL's jsonb would write 1e300 back as 301 digits (and a
// number past a double's range, refused since, as 131,072 for 1e131071: a
// 16 KB body answered with 131 MB in every read, event and webhook) and
// reorder the keys.
func TestObjectMembersKeepTheirText(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		props := `{"zeta":1e300,"alpha":[1.50,-2E-5],"tiny":1e-16383,"nested":{"b":true,"a":null}}`
		r := h.call("POST", "/v1/suppliers", `{"id":"s1","properties":`+props+`,"mapping":{"z":"1","a":"2"}}`).want(201)
		if len(r.Body) > 4096 || !strings.Contains(string(r.Body), `"properties":`+props) {
			t.Fatalf("created, %d bytes: %.400s", len(r.Body), r.Body)
		}
		if got := h.call("GET", "/v1/suppliers/s1", "").want(200); !strings.Contains(string(got.Body), `"properties":`+props) {
			t.Fatalf("read, %d bytes: %.400s", len(got.Body), got.Body)
		}
		if ev := h.sync().Events("/v1/events", 1); len(ev.Body) > 4096 || !strings.Contains(string(ev.Body), props) {
			t.Fatalf("its event, %d bytes: %.400s", len(ev.Body), ev.Body)
		}
		// A name given twice in an object within them is refused, as it is
		// in the body itself: keeping one of the values would be a guess.
		h.call("POST", "/v1/suppliers", `{"id":"s2","properties":{"a":1,"nested":{"b":1,"b":2}}}`).problem(400, "invalid_request", "properties")
		// A number no double holds would be infinite, or an error, in a
		// client's decoder: refused, named.
		h.call("PUT", "/v1/suppliers/s3", `{"name":"s","properties":{"n":1e400}}`).problem(400, "invalid_request", "properties").mentions("1e400")
		h.call("POST", "/v1/suppliers", `{"id":"s2","mapping":{"k":"a","k":"b"}}`).problem(400, "invalid_request", "mapping")
		if n := count(t, h.db, "suppliers"); n != 1 {
			t.Fatalf("%d suppliers after refused bodies", n)
		}
	})
}

package server_test

import "testing"

// If-None-Match conditions a write as RFC 9110 §13.1.2 says: the write is
// made only if the record is at none of the versions listed — with *,
// never (412, nothing written; a record that does not exist is a 404) —
// and a create-or-update without an id creates under it.
func TestIfNoneMatchConditionsWrites(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"c1","email":"a@example.com"}`).want(201)
		h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-None-Match", "*").problem(412, "precondition_failed")
		h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-None-Match", `"1"`).problem(412, "precondition_failed")
		h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-None-Match", `"7", W/"1"`).want(200)
		h.call("DELETE", "/v1/customers/c1", "", "If-None-Match", "*").problem(412, "precondition_failed")
		h.call("DELETE", "/v1/customers/c1", "", "If-None-Match", `"1", "2"`).problem(412, "precondition_failed")
		h.call("DELETE", "/v1/customers/c1", "", "If-None-Match", `"2"`, "If-Match", `"2"`).problem(400, "invalid_request", "If-None-Match")
		if r := h.call("GET", "/v1/customers/c1", "").want(200); r.obj()["email"] != "b@example.com" || r.obj()["version"].(interface{ String() string }).String() != "2" {
			t.Fatalf("after the refused writes: %s", r.Body)
		}
		h.call("PATCH", "/v1/customers/nobody", `{"email":"b@example.com"}`, "If-None-Match", "*").problem(404, "not_found")
		h.call("DELETE", "/v1/customers/c1", "", "If-None-Match", `"1"`).want(200)
		// Update Case without an id creates under a new one: * holds.
		h.call("POST", "/v1/cases", `{"caseName":"c"}`, "If-None-Match", "*").want(201)
	})
}

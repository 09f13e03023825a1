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

// POST /v1/cases belongs to Update Case, an update that creates without an
// id; a JSON array there is the plural's bulk create, as on every other
// plural: all or none, faults under their index, a taken id a conflict.
func TestCasesTakeBulkCreates(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		r := h.call("POST", "/v1/cases", `[{"caseName":"a"},{"id":"k2","caseName":"b"}]`).want(201)
		if cases := r.list("cases"); len(cases) != 2 || dig(t, cases[1], "id") != "k2" {
			t.Fatalf("bulk of cases: %s", r.Body)
		}
		h.call("POST", "/v1/cases", `[{"caseName":"c"},{"caseName":5,"nope":1}]`).problem(400, "invalid_request", "[1].nope")
		h.call("POST", "/v1/cases", `[{"caseName":"d"},{"id":"k2"}]`).problem(409, "conflict", "[1].id")
		if n := len(h.call("GET", "/v1/cases/list", "").want(200).at("data", "case").([]any)); n != 2 {
			t.Fatalf("%d cases after the failed bulks, want 2", n)
		}
	})
}

package problem

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConstructors(t *testing.T) {
	cause := errors.New("disk on fire")
	cases := []struct {
		name        string
		err         *Error
		code        Code
		detail, msg string
		members     []MemberError
	}{
		{"new", New(NotFound, "no %s %q", "return", "r1"), NotFound, `no return "r1"`, `not_found: no return "r1"`, nil},
		{"member", Member("price", "must be a number, not %s", "a string"), InvalidRequest,
			"price: must be a number, not a string", "invalid_request: price: must be a number, not a string; price: must be a number, not a string",
			[]MemberError{{"price", "must be a number, not a string"}}},
		{"one of members", Members([]MemberError{{"sku", "is required"}}), InvalidRequest,
			"sku: is required", "invalid_request: sku: is required; sku: is required", []MemberError{{"sku", "is required"}}},
		{"members", Members([]MemberError{{"sku", "is required"}, {"qty", "must be an integer"}}), InvalidRequest,
			"2 members are invalid", "invalid_request: 2 members are invalid; sku: is required; qty: must be an integer",
			[]MemberError{{"sku", "is required"}, {"qty", "must be an integer"}}},
		{"wrap", Wrap(cause), Internal, "", "internal: disk on fire", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err.Code != c.code || c.err.Detail != c.detail || c.err.Error() != c.msg {
				t.Errorf("got %s / %q / %q", c.err.Code, c.err.Detail, c.err.Error())
			}
			if diff := cmp.Diff(c.members, c.err.Members); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
	if !errors.Is(Wrap(cause), cause) {
		t.Error("a wrapped cause is not found by errors.Is")
	}
}

func TestPrefix(t *testing.T) {
	cases := []struct {
		parent, member, want string
	}{
		{"work_order_line_items[2]", "sku", "work_order_line_items[2].sku"},
		{"work_order_line_items", "[2].sku", "work_order_line_items[2].sku"},
		{"[0]", "email", "[0].email"},
	}
	for _, c := range cases {
		got := Prefix(Member(c.member, "is wrong"), c.parent).(*Error)
		if got.Members[0].Member != c.want || got.Detail != c.want+": is wrong" {
			t.Errorf("Prefix(%q, %q) = %+v", c.member, c.parent, got)
		}
	}
	plain := errors.New("plain")
	if Prefix(plain, "x") != plain {
		t.Error("an error that is not a problem was changed")
	}
	orig := Member("sku", "is required")
	Prefix(orig, "items[1]")
	if orig.Members[0].Member != "sku" {
		t.Error("Prefix changed the problem it was given")
	}
}

// Append writes RFC 9457 with the service's members; an internal problem's
// cause never reaches the client.
func TestAppend(t *testing.T) {
	cases := []struct {
		name string
		err  *Error
		want map[string]any
	}{
		{"member", Member("price", "must be a number"), map[string]any{
			"type": "/docs#problem-invalid_request", "title": InvalidRequest.Title(), "status": 400.0,
			"detail": "price: must be a number", "code": "invalid_request", "success": 0.0, "request_id": "req-1",
			"errors": []any{map[string]any{"member": "price", "problem": "must be a number"}},
		}},
		{"no detail", &Error{Code: NotFound}, map[string]any{
			"type": "/docs#problem-not_found", "title": NotFound.Title(), "status": 404.0,
			"detail": "Not Found", "code": "not_found", "success": 0.0, "request_id": "req-1", "errors": []any{},
		}},
		{"internal", &Error{Code: Internal, Detail: "pq: password authentication failed", Cause: errors.New("secret dsn")}, map[string]any{
			"type": "/docs#problem-internal", "title": Internal.Title(), "status": 500.0,
			"detail": "the server failed to answer; the request id identifies the failure in the server's log",
			"code":   "internal", "success": 0.0, "request_id": "req-1", "errors": []any{},
		}},
		{"quotes", Member(`na"me`, "bad \n value"), map[string]any{
			"type": "/docs#problem-invalid_request", "title": InvalidRequest.Title(), "status": 400.0,
			"detail": "na\"me: bad \n value", "code": "invalid_request", "success": 0.0, "request_id": "req-1",
			"errors": []any{map[string]any{"member": `na"me`, "problem": "bad \n value"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got map[string]any
			if err := json.Unmarshal(Append(nil, c.err, "req-1"), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

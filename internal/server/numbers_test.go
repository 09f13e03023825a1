package server_test

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Dates and times hold four-digit years in UTC, as both databases and RFC
// 3339 keep them: a value outside 0001–9999 is a 400 naming the member and
// writes nothing (PostgreSQL would keep year 0 as 1 BC, SQLite a year
// 10000 as text no reader parses, and the record, its event log and the
// webhooks of every team would fail on it); the first and last instants
// in range are kept, read back and logged.
// An integer member written with a fraction of zeros or an exponent is the
// integer its digits say, stored and read back exactly on both databases:
// not the nearest float64 (9007199254740993.0 was stored 9007199254740992),
// and not refused when in range (9223372036854775807.0 was "out of range").
func TestIntegerMembersAreExact(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for i, c := range []struct{ sent, stored string }{
			{`9007199254740993.0`, "9007199254740993"},
			{`"9007199254740993.0"`, "9007199254740993"},
			{`1234567890123456789.0`, "1234567890123456789"},
			{`12345678901234567.89e2`, "1234567890123456789"},
			{`9223372036854775806.0`, "9223372036854775806"},
			{`"9223372036854775807.0"`, "9223372036854775807"},
			{`-9223372036854775808.0`, "-9223372036854775808"},
			{`-9.223372036854775808e18`, "-9223372036854775808"},
			{`9007199254740992`, "9007199254740992"},
		} {
			id := fmt.Sprintf("q%d", i)
			h.call("POST", "/v1/packing_list_items", fmt.Sprintf(`{"id":%q,"quantity":%s}`, id, c.sent)).want(201)
			if got := h.call("GET", "/v1/packing_list_items/"+id, "").want(200).at("quantity"); got != json.Number(c.stored) {
				t.Errorf("quantity %s read back as %v, want %s", c.sent, got, c.stored)
			}
		}
		// A filter reads its value the same way: 2⁵³+1 is not 2⁵³.
		items := h.call("GET", "/v1/packing_list_items?filter[quantity]=9007199254740993.0", "").want(200).list("packing_list_items")
		if len(items) != 2 {
			t.Errorf("filter quantity=9007199254740993.0 found %d records, want 2: %v", len(items), items)
		}
		// A fraction that is not zero, and anything out of range, stay 400s.
		h.call("POST", "/v1/packing_list_items", `{"quantity":9007199254740993.5}`).problem(400, "invalid_request", "quantity").mentions("whole number")
		h.call("POST", "/v1/packing_list_items", `{"quantity":9223372036854775808.0}`).problem(400, "invalid_request", "quantity").mentions("out of range")
		h.call("POST", "/v1/packing_list_items", `{"quantity":1e999999999}`).problem(400, "invalid_request", "quantity").mentions("out of range")
	})
}

// One rule for numeric strings, in writes and filters alike: a string
// holding a JSON number's text and nothing more is that number ("1e3" is
// 1000 as 1e3 is); spaces and a "+" are refused everywhere (" 7" was read
// as 7 while "+7" was refused).
func TestNumericStringsFollowOneRule(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/packing_list_items", `{"id":"n1","quantity":"1e3"}`).want(201)
		h.call("POST", "/v1/packing_list_items", `{"id":"n2","quantity":"-7"}`).want(201)
		wo := h.call("POST", "/v1/work_orders", `{}`).want(201).obj()["id"].(string)
		h.call("POST", "/v1/work_order_line_items", `{"id":"n3","work_order_number":"`+wo+`","total_quantity":"2.5e1"}`).want(201)
		if q := h.call("GET", "/v1/packing_list_items/n1", "").want(200).at("quantity"); q != json.Number("1000") {
			t.Errorf(`quantity "1e3" stored as %v`, q)
		}
		for _, q := range []string{"filter[quantity]=1e3", "filter[quantity][in]=1e3,5", "filter[quantity][gt]=999.0"} {
			if l := h.call("GET", "/v1/packing_list_items?"+q, "").want(200).list("packing_list_items"); len(l) != 1 {
				t.Errorf("%s: %d records, want 1", q, len(l))
			}
		}
		if l := h.call("GET", "/v1/work_order_line_items?filter[total_quantity]=25", "").want(200).list("work_order_line_items"); len(l) != 1 {
			t.Errorf("total_quantity 25: %d records, want 1", len(l))
		}
		for _, bad := range []string{`" 7"`, `"7 "`, `"+7"`, `"07"`, `"0x7"`} {
			h.call("POST", "/v1/packing_list_items", `{"quantity":`+bad+`}`).problem(400, "invalid_request", "quantity")
			h.call("PATCH", "/v1/packing_list_items/n2", `{"quantity":`+bad+`}`).problem(400, "invalid_request", "quantity")
			h.call("GET", "/v1/packing_list_items", `{"filter":{"quantity":{"gte":`+bad+`}}}`).problem(400, "invalid_request", "filter.quantity.gte")
			h.call("POST", "/v1/work_order_line_items", `{"work_order_number":"`+wo+`","total_quantity":`+bad+`}`).problem(400, "invalid_request", "total_quantity")
		}
		for _, bad := range []string{"%207", "7%20", "%2B7"} {
			h.call("GET", "/v1/packing_list_items?filter[quantity]="+bad, "").problem(400, "invalid_request", "filter.quantity")
			h.call("GET", "/v1/work_order_line_items?filter[total_quantity][lt]="+bad, "").problem(400, "invalid_request", "filter.total_quantity.lt")
		}
	})
}

func TestDatesOutsideFourDigitYearsAre400(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"u0","birthday":"0000-01-01"}`).problem(400, "invalid_request", "birthday").mentions("0001-01-01")
		h.call("POST", "/v1/users", `{"id":"u0","last_seen":"0001-01-01T00:00:00+01:00"}`).problem(400, "invalid_request", "last_seen")
		h.call("POST", "/v1/users", `{"id":"u0","last_typed":"2026-01-01T00:00:00+24:00"}`).problem(400, "invalid_request", "last_typed")
		if n := len(h.call("GET", "/v1/users", "").want(200).list("users")); n != 0 {
			t.Fatalf("%d users were stored from refused bodies", n)
		}
		h.call("POST", "/v1/vendors", `{"id":"v1"}`).want(201)
		created := h.call("GET", "/v1/vendors/v1", "").want(200).obj()["created_at"]
		h.call("PATCH", "/v1/vendors/v1", `{"created_at":"9999-12-31T23:00:00-05:00"}`).problem(400, "invalid_request", "created_at")
		h.call("POST", "/v1/work_orders", `[{"id":"w1"},{"id":"w2","created_at":"10000-01-01T00:00:00Z"}]`).problem(400, "invalid_request", "[1].created_at")
		if v := h.call("GET", "/v1/vendors/v1", "").want(200).obj(); fmt.Sprint(v["version"]) != "1" || v["created_at"] != created {
			t.Fatalf("a refused PATCH wrote: %v", v)
		}
		h.call("GET", "/v1/users?filter[birthday][gt]=10000-01-01", "").problem(400, "invalid_request", "filter.birthday.gt")

		u := h.call("POST", "/v1/users", `{"id":"u1","birthday":"0001-01-01","last_seen":"9999-12-31T23:59:59.999999Z","last_typed":"0001-01-01T00:00:00Z"}`).want(201).obj()
		if u["birthday"] != "0001-01-01" || u["last_seen"] != "9999-12-31T23:59:59.999999Z" || u["last_typed"] != "0001-01-01T00:00:00Z" {
			t.Fatalf("the edges of the range came back as %v", u)
		}
		h.call("GET", "/v1/users/u1/history", "").want(200)
		if n := len(h.sync().Events("/v1/events?limit=1000", 2).List("events")); n != 2 {
			t.Fatalf("%d events, want the vendor's and the user's", n)
		}
	})
}

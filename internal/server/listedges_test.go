package server_test

import (
	"strings"
	"testing"
)

// A CSV cell holds the stored text byte for byte: a line break inside it
// stays LF, CR or CRLF as sent, quotes are doubled inside quotes, an empty
// text is "" and a null is nothing.
func TestCSVCellsHoldTextAsItIs(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"c1","firstName":"line\nbreak","lastName":"a\rb"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"c2","firstName":"","lastName":" say \"hi\", \r\n"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"c3","firstName":"plain"}`).want(201)
		r := h.call("GET", "/v1/users?fields=firstName,lastName&order_by=id", "", "Accept", "text/csv").want(200)
		want := "id,version,firstName,lastName\r\n" +
			"c1,1,\"line\nbreak\",\"a\rb\"\r\n" +
			"c2,1,\"\",\" say \"\"hi\"\", \r\n\"\r\n" +
			"c3,1,plain,\r\n"
		if string(r.Body) != want {
			t.Fatalf("CSV:\n%q\nwant\n%q", r.Body, want)
		}
	})
}

// contains matches its text literally, letters A–Z in either case, and
// takes a value of any length on both databases (SQLite's LIKE refuses a
// pattern over 50,000 bytes, so SQLite's contains does not use it).
func TestContainsTakesAnyTextLiterally(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"u1","firstName":"100% Sure_x"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"u2","firstName":"100 sure"}`).want(201)
		for q, want := range map[string]int{"%25%20s": 1, "_": 1, "SURE": 2, "%5C": 0, "": 2} {
			if n := len(h.call("GET", "/v1/users?filter[firstName][contains]="+q, "").want(200).list("users")); n != want {
				t.Errorf("contains %q: %d records, want %d", q, n, want)
			}
		}
		long := `{"filter":{"firstName":{"contains":"` + strings.Repeat("%", 30000) + `"}}}`
		if n := len(h.call("GET", "/v1/users", long).want(200).list("users")); n != 0 {
			t.Fatalf("30,000 %%: %d records", n)
		}
	})
}

// An id no record could have, in a path: a list narrowed to it is empty,
// a read (get-or-create with an id included) is a 404, on both databases
// alike. An id is counted in characters, not bytes.
func TestImpossiblePathIDs(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		long := strings.Repeat("x", 256)
		for _, id := range []string{"%00", "%FF", "%ED%A0%80", long} {
			for _, path := range []string{"/v1/users/", "/v1/packing_list/"} {
				r := h.call("GET", path+id, "").want(200)
				for _, v := range r.JSON.(map[string]any) {
					if l, ok := v.([]any); ok && len(l) != 0 {
						t.Fatalf("%s%s: %s", path, id, r.Body)
					}
				}
			}
			for _, path := range []string{"/v1/packing_lists/", "/v1/work_orders/", "/v1/bill_of_materials_line_items/", "/v1/returns/"} {
				h.call("GET", path+id, "").problem(404, "not_found")
			}
		}
		wide := strings.Repeat("é", 255)
		h.call("POST", "/v1/users", `{"id":"`+wide+`"}`).want(201)
		h.call("GET", "/v1/users/"+wide, "").want(200)
		h.call("POST", "/v1/users", `{"id":"`+wide+`é"}`).problem(400, "invalid_request", "id")
	})
}

// A member given twice inside a list's filter is named, as in a query
// string.
func TestFilterMembersGivenTwiceAreNamed(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("GET", "/v1/users", `{"filter":{"firstName":"Ann","firstName":"bob"}}`).
			problem(400, "invalid_request", "filter.firstName").mentions("more than once")
		h.call("GET", "/v1/users", `{"filter":{"firstName":{"eq":"Ann","eq":"bob"}}}`).
			problem(400, "invalid_request", "filter.firstName.eq").mentions("more than once")
	})
}

// A date-time bound finer than the microseconds records keep is compared
// as it is: 09:01:00.0000005 falls between 09:01:00 and 09:01:00.000001.
func TestTimeBoundsFinerThanMicroseconds(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"t0","last_seen":"2026-01-02T09:01:00Z"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"t1","last_seen":"2026-01-02T09:01:00.000001Z"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"tn"}`).want(201)
		const x = `"2026-01-02T09:01:00.0000005Z"`
		for filter, want := range map[string]string{
			`{"gte":` + x + `}`: "t1", `{"gt":` + x + `}`: "t1",
			`{"lt":` + x + `}`: "t0", `{"lte":` + x + `}`: "t0",
			`{"eq":` + x + `}`: "", `{"ne":` + x + `}`: "t0,t1,tn",
			`{"in":[` + x + `,"2026-01-02T09:01:00Z"]}`: "t0", `{"nin":[` + x + `]}`: "t0,t1,tn",
			`{"gte":"2026-01-02T09:01:00.000001000Z"}`: "t1",
		} {
			var ids []string
			for _, u := range h.call("GET", "/v1/users", `{"filter":{"last_seen":`+filter+`},"order_by":"id","fields":"id"}`).want(200).list("users") {
				ids = append(ids, u.(map[string]any)["id"].(string))
			}
			if got := strings.Join(ids, ","); got != want {
				t.Errorf("last_seen %s: %s, want %s", filter, got, want)
			}
		}
	})
}

// The same at both ends of the range a Date/Time member holds: in its last
// microsecond the bound moved up is past every instant (gte matches
// nothing, lt every value) — on SQLite it was a five-digit year, compared
// as text, and gte matched every record; in its first nothing moves out.
func TestTimeBoundsAtTheEndsOfTheRange(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"first","last_seen":"0001-01-01T00:00:00Z"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"last","last_seen":"9999-12-31T23:59:59.999999Z"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"none"}`).want(201)
		const end, start = `"9999-12-31T23:59:59.9999995Z"`, `"0001-01-01T00:00:00.0000005Z"`
		for filter, want := range map[string]string{
			`{"gte":` + end + `}`: "", `{"gt":` + end + `}`: "",
			`{"lt":` + end + `}`: "first,last", `{"lte":` + end + `}`: "first,last",
			`{"eq":` + end + `}`: "", `{"ne":` + end + `}`: "first,last,none",
			`{"not":{"gte":` + end + `}}`: "first,last,none", `{"not":{"lt":` + end + `}}`: "none",
			`{"gte":` + start + `}`: "last", `{"gt":` + start + `}`: "last",
			`{"lt":` + start + `}`: "first", `{"lte":` + start + `}`: "first",
			`{"not":{"lt":` + start + `}}`: "last,none",
		} {
			f := `{"last_seen":` + filter + `}`
			if inner, ok := strings.CutPrefix(filter, `{"not":`); ok {
				f = `{"not":{"last_seen":` + strings.TrimSuffix(inner, "}") + `}}`
			}
			var ids []string
			for _, u := range h.call("GET", "/v1/users", `{"filter":`+f+`,"order_by":"id","fields":"id"}`).want(200).list("users") {
				ids = append(ids, u.(map[string]any)["id"].(string))
			}
			if got := strings.Join(ids, ","); got != want {
				t.Errorf("%s: %s, want %s", f, got, want)
			}
		}
	})
}

// RFC 3339 allows "t" and "z" in lower case: writes, filters and the event
// log's since take them as the instants their upper-case forms are.
func TestLowerCaseTAndZ(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		u := h.call("POST", "/v1/users", `{"id":"lc","last_seen":"2026-01-02t09:01:00.5z"}`).want(201).obj()
		if u["last_seen"] != "2026-01-02T09:01:00.5Z" {
			t.Fatalf("stored %v", u["last_seen"])
		}
		h.call("PATCH", "/v1/users/lc", `{"last_seen":"2026-01-02t10:01:00.5+01:00"}`).want(200)
		for _, q := range []string{
			"filter[last_seen]=2026-01-02t09:01:00.5z",
			"filter[last_seen][gte]=2026-01-02T09:01:00.5z",
			"filter[last_seen][lte]=2026-01-02t09:01:00.5Z",
			"filter[last_seen][in]=2026-01-02t09:01:00.5z,2027-01-01t00:00:00z",
		} {
			if l := h.call("GET", "/v1/users?"+q, "").want(200).list("users"); len(l) != 1 {
				t.Errorf("%s: %d users, want 1", q, len(l))
			}
		}
		h.call("GET", "/v1/events?since=2026-01-02t09:01:00z", "").want(200)
		h.call("POST", "/v1/users", `{"last_seen":"2026-01-02x09:01:00z"}`).problem(400, "invalid_request", "last_seen")
	})
}

// Filters on an id — the record's, or a parent's — check a bound or a
// fragment as text, as every text member's: prefix "" or lt "r/2" compare
// (an id is 1 to 255 characters without "/", but a bound need not be one),
// where {"id":{"prefix":""}} was a 400 "must be UTF-8 text of 1 to 255
// characters". eq and in still take ids only.
func TestIDBoundsAndFragmentsAreText(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ret := h.call("POST", "/v1/returns", `{"id":"r1"}`).want(201).obj()["id"].(string)
		h.call("POST", "/v1/return_line_items", `{"id":"r1-a","return_id":"`+ret+`"}`).want(201)
		h.call("POST", "/v1/return_line_items", `{"id":"r3"}`).want(201)
		ids := func(filter string) string {
			t.Helper()
			var out []string
			for _, u := range h.call("GET", "/v1/return_line_items", `{"filter":`+filter+`,"order_by":"id","fields":"id"}`).want(200).list("return_line_items") {
				out = append(out, u.(map[string]any)["id"].(string))
			}
			return strings.Join(out, ",")
		}
		for filter, want := range map[string]string{
			`{"id":{"prefix":""}}`:                              "r1-a,r3",
			`{"id":{"lt":"r1/"}}`:                               "r1-a",
			`{"id":{"gte":"r1/"}}`:                              "r3",
			`{"id":{"contains":"1-"}}`:                          "r1-a",
			`{"id":{"lte":"` + strings.Repeat("r", 300) + `"}}`: "r1-a,r3",
			`{"return_id":{"prefix":""}}`:                       "r1-a",
			`{"return_id":{"gt":"r1/"}}`:                        "",
			`{"return_id":{"contains":""}}`:                     "r1-a",
		} {
			if got := ids(filter); got != want {
				t.Errorf("%s: %s, want %s", filter, got, want)
			}
		}
		if got := h.call("GET", "/v1/return_line_items?filter[id][prefix]=&fields=id", "").want(200).list("return_line_items"); len(got) != 2 {
			t.Errorf("filter[id][prefix]= answered %d records, want 2", len(got))
		}
		h.call("GET", "/v1/return_line_items", `{"filter":{"id":{"eq":"a/b"}}}`).problem(400, "invalid_request", "filter.id.eq")
		h.call("GET", "/v1/return_line_items", `{"filter":{"id":{"prefix":"a\u0000"}}}`).problem(400, "invalid_request", "filter.id.prefix")
	})
}

// An offset is 0 to 2³¹ − 1, as the OpenAPI document says; past it a 400
// says so.
func TestOffsetBound(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("GET", "/v1/users?limit=1&offset=2147483647", "").want(200)
		h.call("GET", "/v1/users?limit=1&offset=2147483648", "").problem(400, "invalid_request", "offset").mentions("2147483647")
	})
}

// A cursor after a record with a long text key stays short: it carries the
// text's digest and the list reads the text back from that record. When
// that record changed the text or is gone, the cursor is a 400 naming it.
func TestCursorsAfterLongTexts(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		long := strings.Repeat("Y", 200000)
		for _, id := range []string{"a", "b", "c"} {
			h.call("POST", "/v1/users", `{"id":"`+id+`","firstName":"`+long+id+`","lastName":"long"}`).want(201)
		}
		next := func(cursor string) (string, string) {
			path := "/v1/users?filter[lastName]=long&order_by=firstName&limit=1&fields=id"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := h.call("GET", path, "").want(200)
			c, _ := r.obj("paging")["next_cursor"].(string)
			if len(c) > 1000 {
				t.Fatalf("a cursor of %d bytes", len(c))
			}
			return r.list("users")[0].(map[string]any)["id"].(string), c
		}
		var ids []string
		id, c := next("")
		for ids = append(ids, id); c != ""; ids = append(ids, id) {
			id, c = next(c)
		}
		if strings.Join(ids, ",") != "a,b,c" {
			t.Fatalf("walked %v", ids)
		}
		_, c = next("")
		h.call("PATCH", "/v1/users/a", `{"firstName":"`+long+`a2"}`).want(200)
		h.call("GET", "/v1/users?filter[lastName]=long&order_by=firstName&limit=1&cursor="+c, "").problem(400, "invalid_request", "cursor")
		_, c = next("")
		h.call("DELETE", "/v1/users/a", "").want(200)
		h.call("GET", "/v1/users?filter[lastName]=long&order_by=firstName&limit=1&cursor="+c, "").problem(400, "invalid_request", "cursor")
	})
}

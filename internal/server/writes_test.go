package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"records/internal/auth"
)

// Versions count writes; answers of one plain record carry them as ETag;
// reads honour If-None-Match and writes If-Match.
func TestVersionsAndPreconditions(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		r := h.call("POST", "/v1/customers", `{"id":"c1","email":"a@example.com"}`).want(201)
		if r.Header.Get("ETag") != `"1"` || r.obj()["version"] != json.Number("1") {
			t.Fatalf("a created record is version 1: %s %s", r.Header.Get("ETag"), r.Body)
		}
		h.call("GET", "/v1/customers/c1", "", "If-None-Match", `"1"`).want(304)
		h.call("GET", "/v1/customers/c1", "", "If-None-Match", `"7", "1"`).want(304)
		if r := h.call("GET", "/v1/customers/c1", "", "If-None-Match", `"2"`).want(200); r.Header.Get("ETag") != `"1"` {
			t.Fatalf("ETag %q", r.Header.Get("ETag"))
		}
		h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-Match", `"2"`).problem(412, "precondition_failed")
		h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-Match", `W/"1"`).problem(412, "precondition_failed")
		if got := h.call("GET", "/v1/customers/c1", "").want(200).obj()["email"]; got != "a@example.com" {
			t.Fatalf("a failed precondition wrote: %v", got)
		}
		r = h.call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`, "If-Match", `"0", "1"`).want(200)
		if r.Header.Get("ETag") != `"2"` || r.obj()["email"] != "b@example.com" {
			t.Fatalf("patched: %s %s", r.Header.Get("ETag"), r.Body)
		}
		h.call("PATCH", "/v1/customers/c1", `{}`, "If-Match", "*").want(200)
		h.call("PATCH", "/v1/customers/nope", `{}`, "If-Match", "*").problem(412, "precondition_failed")
		h.call("PATCH", "/v1/customers/nope", `{}`).problem(404, "not_found")
		h.call("PATCH", "/v1/customers/c1", `{}`, "If-Match", "3").problem(400, "invalid_request", "If-Match")
		// Tags compare strongly, as text: "03" and "+3" are no version's.
		h.call("PATCH", "/v1/customers/c1", `{}`, "If-Match", `"03"`).problem(412, "precondition_failed")
		h.call("PATCH", "/v1/customers/c1", `{}`, "If-Match", `"+3"`).problem(412, "precondition_failed")
		h.call("GET", "/v1/customers/c1", "", "If-None-Match", `"03"`).want(200)
		// * stands alone.
		h.call("PATCH", "/v1/customers/c1", `{}`, "If-Match", `*, "3"`).problem(400, "invalid_request", "If-Match")
		h.call("GET", "/v1/customers/c1", "", "If-None-Match", `"3", *`).problem(400, "invalid_request", "If-None-Match")
		// An upsert under If-None-Match: * is a create: it never updates.
		h.call("PUT", "/v1/return_line_items/li-new", `{"sku":"a"}`, "If-None-Match", "*").want(201)
		h.call("PUT", "/v1/return_line_items/li-new", `{"sku":"b"}`, "If-None-Match", "*").problem(412, "precondition_failed")
		if sku := h.call("GET", "/v1/return_line_items/li-new", "").want(200).obj()["sku"]; sku != "a" {
			t.Fatalf("a create-only PUT updated: %v", sku)
		}
		h.call("PUT", "/v1/return_line_items/li-new", `{"sku":"b"}`, "If-None-Match", `"1"`).problem(400, "invalid_request", "If-None-Match")
		h.call("PUT", "/v1/return_line_items/li-new", `{"sku":"b"}`, "If-None-Match", "*", "If-Match", "*").problem(400, "invalid_request", "If-None-Match")
		// An upsert under If-Match is an update: it never creates.
		h.call("PUT", "/v1/return_line_items/li-1", `{"sku":"a"}`, "If-Match", "*").problem(412, "precondition_failed")
		h.call("PUT", "/v1/return_line_items/li-1", `{"sku":"a"}`).want(201)
		up := h.call("PUT", "/v1/return_line_items/li-1", `{"sku":"b"}`, "If-Match", `"1"`).want(200)
		if v := up.at("data", "insert_return_line_items", "returning", 0, "version"); v != json.Number("2") {
			t.Fatalf("upsert's version %v", v)
		}
		h.call("DELETE", "/v1/customers/c1", "", "If-Match", `"1"`).problem(412, "precondition_failed")
		h.call("DELETE", "/v1/customers/c1", "", "If-Match", `"3"`).want(200)
		h.call("DELETE", "/v1/customers/c1", "", "If-Match", `"3"`).problem(412, "precondition_failed")
		// Envelope answers carry versions in their records but no ETag.
		if r := h.call("PUT", "/v1/returns/", `{"return_id":"r1","return":{"status":"open"}}`).want(201); r.Header.Get("ETag") != "" {
			t.Fatal("an envelope answer carries no ETag")
		}
	})
}

// An answer that is more than the record alone — the line items a work
// order embeds, the records expand= adds — or less (fields=) carries the
// version and a digest of the answer as its ETag: it changes when the
// related records do, so If-None-Match never answers a stale 304; If-Match
// takes such a tag by its version.
func TestETagsOfAnswersWithRelatedRecords(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/returns", `{"id":"r1","status":"open"}`).want(201)
		h.call("POST", "/v1/return_line_items", `{"id":"l1","return_id":"r1","sku":"a"}`).want(201)
		path := "/v1/returns/r1?expand=return_line_items"
		first := h.call("GET", path, "").want(200).Header.Get("ETag")
		if !strings.HasPrefix(first, `"1-`) {
			t.Fatalf("ETag %q: want the version and a digest", first)
		}
		h.call("GET", path, "", "If-None-Match", first).want(304)
		if plain := h.call("GET", "/v1/returns/r1", "").want(200).Header.Get("ETag"); plain != `"1"` {
			t.Fatalf("the record alone is tagged by its version, got %q", plain)
		}
		h.call("GET", "/v1/returns/r1", "", "If-None-Match", `"1"`).want(304)
		if tag := h.call("GET", "/v1/returns/r1?fields=status", "").want(200).Header.Get("ETag"); tag == `"1"` || tag == first || !strings.HasPrefix(tag, `"1-`) {
			t.Fatalf("a sparse answer's ETag %q", tag)
		}
		h.call("POST", "/v1/return_line_items", `{"id":"l2","return_id":"r1","sku":"b"}`).want(201)
		r := h.call("GET", path, "", "If-None-Match", first).want(200)
		if second := r.Header.Get("ETag"); second == first || !strings.HasPrefix(second, `"1-`) || len(r.list("expand", "return_line_items")) != 2 {
			t.Fatalf("after a line item was added: ETag %q (was %q), %s", second, first, r.Body)
		}
		h.call("PATCH", "/v1/return_line_items/l1", `{"sku":"c"}`).want(200)
		if again := h.call("GET", path, "").want(200).Header.Get("ETag"); again == r.Header.Get("ETag") {
			t.Fatal("a line item changed, the ETag did not")
		}

		// A work order embeds its line items, always.
		wo := h.call("POST", "/v1/work_orders", `{"id":"w1","work_order_line_items":[{"id":"wl1","part_name":"bolt"}]}`).want(201)
		tag := wo.Header.Get("ETag")
		if read := h.call("GET", "/v1/work_orders/w1", "").want(200); read.Header.Get("ETag") != tag || !strings.HasPrefix(tag, `"1-`) {
			t.Fatalf("the create's ETag %q, the read's %q", tag, read.Header.Get("ETag"))
		}
		h.call("GET", "/v1/work_orders/w1", "", "If-None-Match", tag).want(304)
		h.call("PATCH", "/v1/work_order_line_items/wl1", `{"part_name":"nut"}`).want(200)
		if r := h.call("GET", "/v1/work_orders/w1", "", "If-None-Match", tag).want(200); !strings.Contains(string(r.Body), `"nut"`) {
			t.Fatalf("stale: %s", r.Body)
		}
		h.call("PATCH", "/v1/work_orders/w1", `{"memo":"x"}`, "If-Match", `"2-0"`).problem(412, "precondition_failed")
		h.call("PATCH", "/v1/work_orders/w1", `{"memo":"x"}`, "If-Match", tag).want(200)
	})
}

// Writers racing with one If-Match: exactly one wins, on one server or two
// on one database.
func TestIfMatchRacersHaveOneWinner(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		servers := racingServers(t, h)
		for round := 0; round < 5; round++ {
			id := fmt.Sprintf("race-%d", round)
			h.call("POST", "/v1/customers", `{"id":"`+id+`"}`).want(201)
			var mu sync.Mutex
			statuses := map[int]int{}
			race(8, func(i int) {
				ts := servers[i%len(servers)]
				code, _, body := send(t, ts, h.token, "PATCH", "/v1/customers/"+id, fmt.Sprintf(`{"email":"w%d"}`, i), "If-Match", `"1"`)
				mu.Lock()
				statuses[code]++
				mu.Unlock()
				if code != 200 && code != 412 {
					t.Errorf("racer: %d %s", code, body)
				}
			})
			if statuses[200] != 1 || statuses[412] != 7 {
				t.Fatalf("round %d: %v, want one 200 and seven 412", round, statuses)
			}
			if v := h.call("GET", "/v1/customers/"+id, "").want(200).obj()["version"]; v != json.Number("2") {
				t.Fatalf("version %v after one write", v)
			}
		}
	})
}

// Writes of one record racing its erasure and re-creation (PUT) across
// two servers: a PATCH or DELETE without If-Match applies to the record
// the id names, or finds none — 200 or 404 — and is never refused for the
// record's having been made again while it was written.
func TestWritesRacingARecordsReCreation(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		servers := racingServers(t, h)
		for round := range 15 {
			id := fmt.Sprintf("po-race-%d", round)
			send(t, servers[0], h.token, "PUT", "/v1/purchase_orders/"+id, `{}`)
			var mu sync.Mutex
			odd := []string{}
			race(12, func(i int) {
				// The delete erases for good: a record in the trash keeps
				// its id, which no PUT could then make again.
				w := [][3]string{{"PATCH", `{"description":"d"}`, ""}, {"PUT", `{"description":"u"}`, ""}, {"DELETE", "", "?permanent=true"}}[i%3]
				method, body := w[0], w[1]
				status, _, answer := send(t, servers[i%len(servers)], h.token, method, "/v1/purchase_orders/"+id+w[2], body)
				if status != 200 && status != 201 && status != 404 {
					mu.Lock()
					odd = append(odd, fmt.Sprintf("%s: %d %s", method, status, answer))
					mu.Unlock()
				}
			})
			if len(odd) > 0 {
				t.Fatalf("round %d: %s", round, strings.Join(odd, "\n"))
			}
		}
	})
}

// race runs fn(0) … fn(n-1) at once and waits for them all.
func race(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

// racingServers is the servers that race in a test: h's, and on
// PostgreSQL another instance on its database, as another process would
// be: its own pool, its own caches.
func racingServers(t *testing.T, h *harness) []*httptest.Server {
	t.Helper()
	servers := []*httptest.Server{startServer(t, h.srv)}
	if h.db.Dialect == "postgres" {
		servers = append(servers, startServer(t, secondServerWith(t, h, testConfig())))
	}
	return servers
}

// A bulk create writes all its records or none; faults name the element.
func TestBulkCreate(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/returns", `{"id":"r1"}`).want(201)
		r := h.call("POST", "/v1/return_line_items", `[{"id":"b","return_id":"r1","sku":"x"},{"id":"a","sku":"y"},{"sku":"z"}]`).want(201)
		items := r.list("return_line_items")
		if len(items) != 3 || items[0].(map[string]any)["id"] != "b" || items[1].(map[string]any)["id"] != "a" || items[2].(map[string]any)["sku"] != "z" {
			t.Fatalf("records in input order: %s", r.Body)
		}
		for _, it := range items {
			isRecord(t, "ReturnLineItem", it)
		}
		var many strings.Builder
		many.WriteString("[")
		for i := 0; i < 1000; i++ {
			if i > 0 {
				many.WriteString(",")
			}
			if i == 999 {
				many.WriteString(`{"sku":"last","colour":"red"}`)
			} else {
				fmt.Fprintf(&many, `{"sku":"s%d"}`, i)
			}
		}
		many.WriteString("]")
		before := count(t, h.db, "return_line_items")
		h.call("POST", "/v1/return_line_items", many.String()).problem(400, "invalid_request", "[999].colour")
		taken := strings.Replace(many.String(), `{"sku":"last","colour":"red"}`, `{"id":"a"}`, 1)
		h.call("POST", "/v1/return_line_items", taken).problem(409, "conflict", "[999].id")
		orphan := strings.Replace(many.String(), `{"sku":"last","colour":"red"}`, `{"return_id":"nope"}`, 1)
		h.call("POST", "/v1/return_line_items", orphan).problem(400, "invalid_request", "[999].return_id")
		h.call("POST", "/v1/return_line_items", `[{"id":"x"},{"id":"x"}]`).problem(400, "invalid_request", "[1].id")
		h.call("POST", "/v1/return_line_items", `[]`).problem(400, "invalid_request")
		h.call("POST", "/v1/return_line_items", `[1]`).problem(400, "invalid_request", "[0]")
		if n := count(t, h.db, "return_line_items"); n != before {
			t.Fatalf("a failed bulk create wrote %d records", n-before)
		}
		ok := strings.Replace(many.String(), `{"sku":"last","colour":"red"}`, `{"sku":"last"}`, 1)
		if got := len(h.call("POST", "/v1/return_line_items", ok).want(201).list("return_line_items")); got != 1000 {
			t.Fatalf("%d created", got)
		}
		reader := h.newToken("reader", auth.Read, "")
		h.callAs(reader, "POST", "/v1/return_line_items", `[{}]`).problem(403, "forbidden")
		// A unique value taken — by an element before it, or by a record
		// of any team — is named under its element.
		h.call("POST", "/v1/users", `{"username":"ann"}`).want(201)
		h.callAs(h.newToken("other", auth.Write, "another team"), "POST", "/v1/users", `{"username":"bob"}`).want(201)
		users := count(t, h.db, "users")
		h.call("POST", "/v1/users", `[{"username":"cy"},{"username":"cy"}]`).problem(409, "conflict", "[1].username")
		h.call("POST", "/v1/users", `[{"username":"dee"},{"username":"eve"},{"username":"ann"},{"username":"bob"}]`).problem(409, "conflict", "[2].username", "[3].username")
		if n := count(t, h.db, "users"); n != users {
			t.Fatalf("a bulk create refused for its usernames wrote %d users", n-users)
		}
	})
}

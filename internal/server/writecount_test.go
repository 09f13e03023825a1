package server_test

import (
	"testing"
	"time"
)

// A request refused under SQLite's write lock changed nothing, and counts
// no write (db.DB.Writes: what keeps a search's samples, and lets the
// checkpointer rest); one that writes counts. On PostgreSQL nothing is
// counted.
func TestRefusedWritesCountNoWrite(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"c-1","email":"a@example.com"}`).want(201)
		// What a write leaves to do after its answer (the search index's
		// batch) is counted too: wait until the count stays for 300 ms.
		settled := func() uint64 {
			t.Helper()
			last, still := h.db.Writes(), 0
			for range 100 {
				time.Sleep(100 * time.Millisecond)
				now := h.db.Writes()
				if now != last {
					last, still = now, 0
				} else if still++; still == 3 {
					return now
				}
			}
			t.Fatal("the write count never settled")
			return 0
		}
		counted := func(name string, wrote bool, call func()) {
			t.Helper()
			before := settled()
			call()
			got := settled() - before
			switch {
			case h.db.Postgres() && got != 0:
				t.Errorf("%s: %d writes counted on PostgreSQL", name, got)
			case !h.db.Postgres() && wrote && got == 0:
				t.Errorf("%s: no write counted", name)
			case !wrote && got != 0:
				t.Errorf("%s: %d writes counted, want none", name, got)
			}
		}
		counted("a duplicate id", false, func() {
			h.call("POST", "/v1/customers", `{"id":"c-1"}`).problem(409, "conflict", "id")
		})
		counted("a stale If-Match", false, func() {
			h.call("PATCH", "/v1/customers/c-1", `{"email":"b@example.com"}`, "If-Match", `"9"`).problem(412, "precondition_failed")
		})
		h.call("POST", "/v1/work_orders", `{"id":"wo-1","work_order_line_items":[{"id":"l-1"}]}`).want(201)
		counted("a work order whose line's id is taken", false, func() {
			h.call("POST", "/v1/work_orders", `{"id":"wo-2","work_order_line_items":[{"id":"l-2"},{"id":"l-1"}]}`).
				problem(409, "conflict", "work_order_line_items[1].id")
		})
		counted("a PATCH", true, func() {
			h.call("PATCH", "/v1/customers/c-1", `{"email":"b@example.com"}`).want(200)
		})
		h.call("GET", "/v1/work_orders/wo-2", "").problem(404, "not_found")
	})
}

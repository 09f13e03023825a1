package events_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/servertest"
)

// follower reads the event log as a client following it does: page after
// page by next_cursor; on the last page (next_cursor null) it keeps the
// cursor that read it and asks again later. It fails the test when a page
// it has read changes other than by growing at its end, or when an event
// comes twice.
type follower struct {
	h       *servertest.Harness
	token   string
	cursor  string
	partial []string // the ids of the last, partial page read
	seen    map[string]bool
}

func follow(h *servertest.Harness) *follower {
	return &follower{h: h, token: h.Token, seen: map[string]bool{}}
}

// pollFor polls until n events have come (or 10 s have passed: a
// transaction of the database — another test's — holds the log back until
// it ends), and returns them with any more that came.
func (f *follower) pollFor(n int) []map[string]any {
	f.h.T.Helper()
	var out []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		out = append(out, f.poll()...)
		if len(out) >= n || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// poll returns the events committed since the last poll.
func (f *follower) poll() []map[string]any {
	t := f.h.T
	t.Helper()
	var out []map[string]any
	for {
		path := "/v1/events?limit=50"
		if f.cursor != "" {
			path += "&cursor=" + f.cursor
		}
		r := f.h.CallAs(f.token, "GET", path, "").Want(200)
		page := r.List("events")
		var ids []string
		for _, e := range page {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
		for i, id := range f.partial {
			if i >= len(ids) || ids[i] != id {
				t.Fatalf("a page read before changed: it began %v, now %v", f.partial, ids)
			}
		}
		for i, e := range page {
			id := ids[i]
			if i < len(f.partial) {
				continue
			}
			if f.seen[id] {
				t.Fatalf("event %s answered twice", id)
			}
			f.seen[id] = true
			out = append(out, e.(map[string]any))
		}
		next, _ := r.At("paging", "next_cursor").(string)
		if next == "" {
			f.partial = ids
			return out
		}
		f.cursor, f.partial = next, nil
	}
}

func types(evs []map[string]any) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e["type"].(string)+" "+e["data"].(map[string]any)["object"].(map[string]any)["id"].(string))
	}
	return out
}

// Every write path records exactly its events, with the request and the
// token that made it; a write that fails records none.
func TestEveryWriteRecordsItsEvents(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		f := follow(h)
		expect := func(what string, want ...string) {
			t.Helper()
			got := types(f.pollFor(len(want)))
			if len(want) == 0 {
				want = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: events %q, want %q", what, got, want)
			}
		}
		r := h.Call("POST", "/v1/customers", `{"id":"c1","email":"a@example.com"}`).Want(201)
		evs := f.pollFor(1)
		if len(evs) != 1 || evs[0]["type"] != "customers.created" || evs[0]["request_id"] != r.Header.Get("X-Request-Id") ||
			servertest.Dig(t, evs[0], "actor", "token_name") != "tests" || servertest.Dig(t, evs[0], "data", "object", "email") != "a@example.com" {
			t.Fatalf("create: %v", evs)
		}
		h.Call("PATCH", "/v1/customers/c1", `{"email":"b@example.com"}`).Want(200)
		expect("patch", "customers.updated c1")
		h.Call("PUT", "/v1/suppliers/s1", `{"name":"one"}`).Want(201)
		h.Call("PUT", "/v1/suppliers/s1", `{"name":"two"}`).Want(200)
		expect("upserts", "suppliers.created s1", "suppliers.updated s1")
		h.Call("POST", "/v1/customers", `[{"id":"b1"},{"id":"b2"},{"id":"b3"}]`).Want(201)
		expect("bulk", "customers.created b1", "customers.created b2", "customers.created b3")
		h.Call("POST", "/v1/returns", `{"id":"r1","status":"open"}`).Want(201)
		h.Call("POST", "/v1/return_line_items", `{"id":"li1","return_id":"r1"}`).Want(201)
		h.Call("POST", "/v1/return/r1/reopen", "").Want(200)
		expect("action", "returns.created r1", "return_line_items.created li1", "returns.updated r1")
		h.Call("POST", "/v1/customers", `{"id":"k1"}`, "Idempotency-Key", "k-1").Want(201)
		h.Call("POST", "/v1/customers", `{"id":"k1"}`, "Idempotency-Key", "k-1").Want(201)
		expect("keyed, and its replay", "customers.created k1")
		h.Call("DELETE", "/v1/returns/r1", "").Want(200)
		// The database orders a cascade's deletes: SQLite deletes the
		// children first.
		if got := types(f.pollFor(2)); !reflect.DeepEqual(got, []string{"returns.deleted r1", "return_line_items.deleted li1"}) &&
			!reflect.DeepEqual(got, []string{"return_line_items.deleted li1", "returns.deleted r1"}) {
			t.Fatalf("delete, cascading: %q", got)
		}

		// Writes that fail write no event.
		h.Call("PATCH", "/v1/customers/c1", `{"email":"x@example.com"}`, "If-Match", `"9"`).Problem(412, "precondition_failed")
		h.Call("PATCH", "/v1/customers/nope", `{"email":"x@example.com"}`).Problem(404, "not_found")
		h.Call("POST", "/v1/customers", `{"id":"c1"}`).Problem(409, "conflict", "id")
		h.Call("POST", "/v1/customers", `{"nope":1}`).Problem(400, "invalid_request", "nope")
		h.Call("POST", "/v1/customers", `[{"id":"n1"},{"id":"n2"},{"id":"c1"}]`).Problem(409, "conflict")
		h.Call("POST", "/v1/return_line_items", `{"return_id":"gone"}`).Problem(400, "invalid_request", "return_id")
		h.Call("DELETE", "/v1/customers/nope", "").Problem(404, "not_found")
		// A write after them: its event is the next, so none came between.
		h.Call("PATCH", "/v1/customers/b1", `{"email":"marker@example.com"}`).Want(200)
		expect("failed writes, then a write", "customers.updated b1")

		// History: the record's events, oldest first, and who made them.
		hist := h.Call("GET", "/v1/customers/c1/history", "").Want(200).List("events")
		if len(hist) != 2 || servertest.Dig(t, hist[0], "type") != "customers.created" || servertest.Dig(t, hist[1], "data", "object", "version") != json.Number("2") {
			t.Fatalf("history: %v", hist)
		}
		h.Call("GET", "/v1/customers/never/history", "").Problem(404, "not_found")
		deleted := h.Call("GET", "/v1/returns/r1/history", "").Want(200).List("events")
		if len(deleted) != 3 || servertest.Dig(t, deleted[2], "type") != "returns.deleted" {
			t.Fatalf("a deleted record's history: %v", deleted)
		}
		// Another team sees none of it.
		other := h.NewToken("other", "write", "other-team")
		if r := h.CallAs(other, "GET", "/v1/events", "").Want(200); len(r.List("events")) != 0 {
			t.Fatalf("another team's events: %s", r.Body)
		}
		h.CallAs(other, "GET", "/v1/customers/c1/history", "").Problem(404, "not_found")
	})
}

// Bad parameters of the event routes are 400s naming them.
func TestEventParameters(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("GET", "/v1/events?filter[type]=customers.exploded", "").Problem(400, "invalid_request", "filter.type")
		h.Call("GET", "/v1/events?filter[type][in]=customers.created,nope", "").Problem(400, "invalid_request", "filter.type.in")
		h.Call("GET", "/v1/events?since=yesterday", "").Problem(400, "invalid_request", "since")
		for _, bad := range []string{"0000-12-31T23:00:00Z", "2026-01-01T00:00:00%2B24:00", "9999-12-31T23:59:59-01:00"} {
			h.Call("GET", "/v1/events?since="+bad, "").Problem(400, "invalid_request", "since")
		}
		h.Call("GET", "/v1/events?limit=0", "").Problem(400, "invalid_request", "limit")
		h.Call("GET", "/v1/events?cursor=abc", "").Problem(400, "invalid_request", "cursor")
		h.Call("GET", "/v1/events?color=red", "").Problem(400, "invalid_request", "color")
		h.Call("GET", "/v1/customers/x/history?cursor=abc", "").Problem(400, "invalid_request", "cursor")
		// A list cursor is not an event cursor.
		h.Call("POST", "/v1/customers", `[{"id":"a"},{"id":"b"}]`).Want(201)
		cur := h.Call("GET", "/v1/customers?limit=1", "").Want(200).At("paging", "next_cursor").(string)
		h.Call("GET", "/v1/events?cursor="+cur, "").Problem(400, "invalid_request", "cursor")
		// Filters by type and time.
		h.Call("PATCH", "/v1/customers/a", `{"email":"x@example.com"}`).Want(200)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			l := h.Call("GET", "/v1/events?filter[type]=customers.updated", "").Want(200).List("events")
			if len(l) == 1 {
				break
			}
			if len(l) > 1 || time.Now().After(deadline) {
				t.Fatalf("filter by type: %v", l)
			}
		}
		if l := h.Call("GET", "/v1/events?since="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "").Want(200).List("events"); len(l) != 0 {
			t.Fatalf("since the future: %v", l)
		}
	})
}

// A follower reading by cursor while 32 writers commit sees every
// committed event once: none skipped, none twice, whatever order the
// writers' transactions commit in. On PostgreSQL, transactions of another
// database of the server commit among theirs meanwhile, and one stays open
// throughout: they hold the log back not at all, and put no gap in it.
func TestFollowerSeesEveryEventOnce(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Unchecked = true
		rounds := 1
		if h.DB.Postgres() {
			rounds = 3
			elsewhere := openPool(t, dbtest.OtherDatabaseURL(t))
			defer holdTransaction(t, elsewhere).Rollback()
			stop := make(chan struct{})
			defer close(stop)
			for range 3 {
				go churn(elsewhere, stop)
			}
		}
		f := follow(h)
		for round := range rounds {
			const writers, each = 32, 13
			var wg sync.WaitGroup
			acked := make(chan string, writers*each)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						id := fmt.Sprintf("f%d-%d-%d", round, w, i)
						body := `{"id":"` + id + `"}`
						if i%5 == 4 { // some writes in a transaction of several statements
							body = `[{"id":"` + id + `"},{"id":"` + id + `-b"}]`
						}
						if r := h.Call("POST", "/v1/customers", body); r.Status == 201 {
							acked <- id
						}
					}
				}()
			}
			var got []map[string]any
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			for finished := false; !finished; {
				select {
				case <-done:
					finished = true
				default:
				}
				got = append(got, f.poll()...)
			}
			close(acked)
			// Every committed event shows once no older transaction of the
			// database is in flight — other tests' included — so the
			// follower keeps asking until it has them all.
			records := map[string]bool{}
			for _, e := range got {
				records[servertest.Dig(t, e, "data", "object", "id").(string)] = true
			}
			deadline := time.Now().Add(20 * time.Second)
			for id := range acked {
				for !records[id] {
					for _, e := range f.poll() {
						records[servertest.Dig(t, e, "data", "object", "id").(string)] = true
					}
					if records[id] {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("round %d: the acknowledged create of %s has no event the follower saw", round, id)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			if n := servertest.Count(t, h.DB, "events"); n != len(f.seen) {
				t.Fatalf("round %d: the follower saw %d events, the log holds %d", round, len(f.seen), n)
			}
		}
	})
}

// churn runs transactions in pool, each taking an id and ending a moment
// later, until stop closes.
func churn(pool *sql.DB, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		tx, err := pool.Begin()
		if err != nil {
			return
		}
		_, err = tx.Exec(`SELECT pg_current_xact_id(), pg_sleep($1)`, float64(i%7)/1000)
		if err != nil || i%3 == 0 {
			_ = tx.Rollback()
		} else {
			_ = tx.Commit()
		}
	}
}

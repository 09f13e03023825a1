package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/auth"
)

// A keyed create answers, and replays, the same bytes and ETag for every
// resource and member type. A create that embeds nothing is one statement
// that keeps the record's row with the key, and the replay renders that
// row: the test sees the row kept, so it knows which path ran.
func TestKeyedCreatesReplayTheirAnswers(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for plural := range plurals {
			body := sampleBody(plural)
			if plural == "work_orders" { // with a line item embedded
				body = `{"number":"WO-1","work_order_line_items":[{"part_name":"bolt"}]}`
			}
			key := "create-" + plural
			first := h.call("POST", "/v1/"+plural, body, "Idempotency-Key", key).want(201)
			again := h.call("POST", "/v1/"+plural, body, "Idempotency-Key", key).want(201)
			if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) ||
				again.Header.Get("ETag") != first.Header.Get("ETag") {
				t.Errorf("%s: the replay\n%s %v\ndiffers from the answer\n%s %v", plural, again.Body, again.Header, first.Body, first.Header)
			}
			images := countKeys(t, h, `SELECT count(*) FROM idempotency_keys WHERE id LIKE '%:'||$1 AND image IS NOT NULL`, key) +
				countKeys(t, h, `SELECT count(*) FROM events WHERE idempotency_key LIKE '%:'||$1`, key)
			// Work orders embed their line items (a transaction); POST
			// /v1/cases is Update Case, an upsert (transactions both).
			oneStatement := plural != "work_orders" && plural != "cases"
			if want := map[bool]int{true: 1, false: 0}[oneStatement]; images != want {
				t.Errorf("%s on %s: %d keys keep the row, want %d", plural, h.db.Dialect, images, want)
			}
		}
		// A create without a key after them stores no key.
		keys := func() int {
			return countKeys(t, h, `SELECT count(*) FROM idempotency_keys`) +
				countKeys(t, h, `SELECT count(*) FROM events WHERE idempotency_key IS NOT NULL`)
		}
		before := keys()
		h.call("POST", "/v1/customers", `{"email":"unkeyed@example.com"}`).want(201)
		if after := keys(); after != before {
			t.Fatalf("keys %d, then %d after a create without one", before, after)
		}
		// On SQLite a one-statement create keeps its key on its event, and
		// in idempotency_keys on PostgreSQL (keyed.go).
		onEvents := countKeys(t, h, `SELECT count(*) FROM events WHERE idempotency_key LIKE '%:create-customers'`)
		if want := map[bool]int{true: 0, false: 1}[h.db.Postgres()]; onEvents != want {
			t.Errorf("%d keys kept on events on %s, want %d", onEvents, h.db.Dialect, want)
		}
	})
}

// countKeys answers a count of stored keys.
func countKeys(t *testing.T, h *harness, text string, args ...any) int {
	t.Helper()
	var n int
	if err := h.db.SQL.QueryRowContext(context.Background(), text, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// expireKeys puts every stored key past its time, wherever it is kept.
func expireKeys(t *testing.T, h *harness) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.db.Exec(ctx, `UPDATE idempotency_keys SET expires_at = ?`, time.Now().Add(-time.Minute).UTC()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Exec(ctx, `UPDATE events SET occurred_at = occurred_at - ? WHERE idempotency_key IS NOT NULL`, (25 * time.Hour).Microseconds()); err != nil {
		t.Fatal(err)
	}
}

// A key whose time is up is taken again: the create runs anew (a new
// record, not the stored one), and its answer is the one replayed after.
func TestAnExpiredKeyIsTakenAgain(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		first := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, "Idempotency-Key", "k").want(201)
		expireKeys(t, h)
		second := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, "Idempotency-Key", "k").want(201)
		if second.Header.Get("Idempotent-Replayed") != "" || second.obj()["id"] == first.obj()["id"] {
			t.Fatalf("an expired key replayed: %s", second.Body)
		}
		third := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, "Idempotency-Key", "k").want(201)
		if third.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(third.Body, second.Body) {
			t.Fatalf("the replay after the key was taken again: %s, want %s", third.Body, second.Body)
		}
		if n := count(t, h.db, "customers"); n != 2 {
			t.Fatalf("%d customers, want 2", n)
		}
	})
}

// An Idempotency-Key given twice is refused, not one of them picked.
func TestIdempotencyKeyGivenTwice(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ts := startServer(t, h.srv)
		req, _ := http.NewRequest("POST", ts.URL+"/v1/customers", strings.NewReader(`{"id":"twice"}`))
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Add("Idempotency-Key", "a")
		req.Header.Add("Idempotency-Key", "b")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"member":"Idempotency-Key"`) {
			t.Fatalf("two keys: %d %s", resp.StatusCode, body)
		}
		h.call("GET", "/v1/customers/twice", "").problem(404, "not_found")
	})
}

// A write sent with an Idempotency-Key runs once; its retries are answered
// the same without writing; the key with another request is refused; keys
// are per team.
func TestIdempotencyKeys(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		key := []string{"Idempotency-Key", "order-42"}
		first := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, key...).want(201)
		id := first.obj()["id"]
		again := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, key...).want(201)
		if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) || again.Header.Get("ETag") != first.Header.Get("ETag") {
			t.Fatalf("replay: %v %s", again.Header, again.Body)
		}
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatal("the first answer is not a replay")
		}
		if n := count(t, h.db, "customers"); n != 1 {
			t.Fatalf("%d customers after a retried create", n)
		}
		h.call("POST", "/v1/customers", `{"email":"b@example.com"}`, key...).problem(422, "idempotency_key_reused")
		h.call("PATCH", "/v1/customers/"+id.(string), `{"email":"a@example.com"}`, key...).problem(422, "idempotency_key_reused")
		// Another team's key of the same name is its own.
		other := h.newToken("other", auth.Write, "another team")
		h.callAs(other, "POST", "/v1/customers", `{"email":"a@example.com"}`, key...).want(201)
		if n := count(t, h.db, "customers"); n != 2 {
			t.Fatalf("%d customers, want one per team", n)
		}
		// A failed request stores nothing: the same key then succeeds.
		h.call("POST", "/v1/return_line_items", `{"return_id":"none"}`, "Idempotency-Key", "k2").problem(400, "invalid_request", "return_id")
		h.call("POST", "/v1/return_line_items", `{}`, "Idempotency-Key", "k2").want(201)
		// Every writing method takes a key; a bad key is a 400 naming it.
		h.call("DELETE", "/v1/customers/"+id.(string), "", "Idempotency-Key", "del-1").want(200)
		h.call("DELETE", "/v1/customers/"+id.(string), "", "Idempotency-Key", "del-1").want(200)
		h.call("DELETE", "/v1/customers/"+id.(string), "", "Idempotency-Key", "del-2").problem(404, "not_found")
		h.call("POST", "/v1/customers", `{}`, "Idempotency-Key", strings.Repeat("k", 256)).problem(400, "invalid_request", "Idempotency-Key")
		h.call("POST", "/v1/customers", `{}`, "Idempotency-Key", "tab\there").problem(400, "invalid_request", "Idempotency-Key")
	})
}

// Requests racing with one key, on one server or two on one database,
// write once; the others are replayed or told the first is still running.
func TestConcurrentRequestsWithOneKeyWriteOnce(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		servers := racingServers(t, h)
		for round := 0; round < 5; round++ {
			key := fmt.Sprintf("bulk-%d", round)
			body := fmt.Sprintf(`[{"id":"k%d-a"},{"id":"k%d-b"}]`, round, round)
			var mu sync.Mutex
			statuses := map[int]int{}
			race(8, func(i int) {
				code, hdr, b := send(t, servers[i%len(servers)], h.token, "POST", "/v1/customers", body, "Idempotency-Key", key)
				mu.Lock()
				defer mu.Unlock()
				statuses[code]++
				switch {
				case code == 201:
				case code == 409 && strings.Contains(b, "idempotency_key_in_use") && hdr.Get("Retry-After") != "":
				default:
					t.Errorf("racer: %d %s", code, b)
				}
			})
			if statuses[201] < 1 {
				t.Fatalf("round %d: %v", round, statuses)
			}
		}
		if n := count(t, h.db, "customers"); n != 10 {
			t.Fatalf("%d customers, want 10 (2 a round)", n)
		}
	})
}

// A client that hangs up mid-write and retries with its key ends with the
// write done once.
func TestRetryAfterAHangUpWritesOnce(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ts := startServer(t, h.srv)
		body := jsonArray(1000, func(i int) string {
			return fmt.Sprintf(`{"id":"hang-%d","email":"x%d@example.com","firstName":"F","lastName":"L"}`, i, i)
		})
		for attempt := 0; attempt < 3; attempt++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(attempt)*2*time.Millisecond)
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/customers", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+h.token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "import-1")
			if resp, err := ts.Client().Do(req); err == nil {
				resp.Body.Close()
			}
			cancel()
		}
		// However the hang-ups fell, a retry ends it: all 1000, once.
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, _, b := send(t, ts, h.token, "POST", "/v1/customers", body, "Idempotency-Key", "import-1")
			if code == 201 {
				break
			}
			if code != 409 || time.Now().After(deadline) {
				t.Fatalf("retry: %d %.200s", code, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n := count(t, h.db, "customers"); n != 1000 {
			t.Fatalf("%d customers, want 1000", n)
		}
	})
}

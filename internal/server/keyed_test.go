package server_test

import (
	"bytes"
	"context"
	"testing"
	"time"
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

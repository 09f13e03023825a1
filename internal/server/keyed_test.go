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
		ctx := context.Background()
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
			var images int
			if err := h.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM idempotency_keys WHERE id LIKE '%:'||$1 AND image IS NOT NULL`, key).Scan(&images); err != nil {
				t.Fatal(err)
			}
			// Work orders embed their line items (a transaction); POST
			// /v1/cases is Update Case, an upsert (transactions both).
			oneStatement := plural != "work_orders" && plural != "cases"
			if want := map[bool]int{true: 1, false: 0}[oneStatement]; images != want {
				t.Errorf("%s on %s: %d keys keep the row, want %d", plural, h.db.Dialect, images, want)
			}
		}
		// A create without a key after them stores no key.
		var before, after int
		keys := `SELECT count(*) FROM idempotency_keys`
		if err := h.db.SQL.QueryRowContext(ctx, keys).Scan(&before); err != nil {
			t.Fatal(err)
		}
		h.call("POST", "/v1/customers", `{"email":"unkeyed@example.com"}`).want(201)
		if err := h.db.SQL.QueryRowContext(ctx, keys).Scan(&after); err != nil || after != before {
			t.Fatalf("keys %d, then %d after a create without one (%v)", before, after, err)
		}
	})
}

// A key whose time is up is taken again: the create runs anew (a new
// record, not the stored one), and its answer is the one replayed after.
func TestAnExpiredKeyIsTakenAgain(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		first := h.call("POST", "/v1/customers", `{"email":"a@example.com"}`, "Idempotency-Key", "k").want(201)
		if _, err := h.db.Exec(ctx, `UPDATE idempotency_keys SET expires_at = ?`, time.Now().Add(-time.Minute).UTC()); err != nil {
			t.Fatal(err)
		}
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

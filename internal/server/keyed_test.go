package server_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// A keyed create answers, and replays, the same bytes and ETag for every
// resource and member type. A create that embeds nothing is one statement
// that keeps the record's row with the key, and the replay renders that
// row: the test sees the row kept, so it knows which path ran.
func TestKeyedCreatesReplayTheirAnswers(t *testing.T) {
	bodies := map[string]string{
		"users":                        `{"active":true,"birthday":"2000-02-29","last_seen":"2026-01-02T03:04:05.123456Z","regions":"eu","email":"u@example.com"}`,
		"suppliers":                    `{"name":"S","mapping":{"a":"b"},"properties":{"x":[1,2.5,"y"],"n":null},"created_at":"2025-12-31T23:59:59Z"}`,
		"work_order_line_items":        `{"total_quantity":"12.50","unit_quantity":3}`,
		"bill_of_materials_line_items": `{"quantity":1.25}`,
		"packing_list_items":           `{"quantity":7,"arrived":false}`,
		"packing_lists":                `{"deliveryDate":"2026-03-04"}`,
		"work_orders":                  `{"number":"WO-1","work_order_line_items":[{"part_name":"bolt"}]}`,
	}
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		for plural := range plurals {
			body := bodies[plural]
			if body == "" {
				body = "{}"
				if m := aStringMember(plurals[plural]); m != "" {
					body = fmt.Sprintf(`{%q:"value \"quoted\" ünïcode"}`, m)
				}
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

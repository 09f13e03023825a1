package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"records/client"
)

// testLists walks lists by cursor, and reads them narrowed and shaped.
func testLists(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	var batch []client.CustomerWrite
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("list-%d", i)
		batch = append(batch, client.CustomerWrite{ID: id, Email: client.Set(fmt.Sprintf("%d@list.example", i)), FirstName: client.Set("L")})
		want = append(want, id)
	}
	must(c.Customers.CreateMany(ctx, batch))
	params := &client.ListParams{Filter: client.Filter{"email": client.Ops{"contains": "@list.example"}}, Limit: 3}

	// The iterator follows next_cursor: 3 pages, every record once, in order.
	before := e.hits.count("GET", "/v1/customers")
	got := collect(t, c.Customers.All(ctx, params), func(r client.Customer) string { return r.ID })
	if !slices.Equal(got, want) {
		t.Fatalf("All visited %v, want %v", got, want)
	}
	if pages := e.hits.count("GET", "/v1/customers") - before; pages != 3 {
		t.Fatalf("All read %d pages, want 3", pages)
	}
	// Stopping early stops reading.
	before = e.hits.count("GET", "/v1/customers")
	for r, err := range c.Customers.All(ctx, params) {
		if err != nil || r.ID != "list-0" {
			t.Fatalf("first of All: %v %v", r.ID, err)
		}
		break
	}
	if pages := e.hits.count("GET", "/v1/customers") - before; pages != 1 {
		t.Fatalf("a loop that stops at once read %d pages", pages)
	}

	// Order, count and a page by cursor.
	desc := &client.ListParams{Filter: params.Filter, OrderBy: "-email", Limit: 5, Count: "exact"}
	page := must(c.Customers.List(ctx, desc))
	if len(page.Customers) != 5 || page.Customers[0].ID != "list-6" || deref(page.Paging.Total) != 7 || !page.Paging.HasMore || page.Paging.NextCursor == nil {
		t.Fatalf("the first page by -email: %+v", page)
	}
	desc.Cursor = *page.Paging.NextCursor
	next := must(c.Customers.List(ctx, desc))
	if len(next.Customers) != 2 || next.Customers[1].ID != "list-0" || next.Paging.NextCursor != nil {
		t.Fatalf("the page after: %+v", next)
	}

	// Filters nest in the body; fields narrow the members.
	nested := &client.ListParams{Filter: client.Filter{"or": []client.Filter{{"id": "list-1"}, {"not": client.Filter{"email": client.Ops{"lt": "6"}}, "id": client.Ops{"prefix": "list-"}}}},
		Fields: []string{"email"}}
	page = must(c.Customers.List(ctx, nested))
	if len(page.Customers) != 2 || page.Customers[0].ID != "list-1" || page.Customers[1].ID != "list-6" {
		t.Fatalf("nested filter: %+v", page.Customers)
	}
	if r := page.Customers[0]; r.Email == nil || r.FirstName != nil || r.Version != 1 {
		t.Fatalf("fields=email answered %+v", r)
	}

	// A parent with its children expanded.
	ret := must(c.Returns.Create(ctx, client.ReturnWrite{ID: "list-ret"}))
	must(c.ReturnLineItems.CreateMany(ctx, []client.ReturnLineItemWrite{{ReturnID: client.Set(ret.ID)}, {ReturnID: client.Set(ret.ID)}}))
	withItems := must(c.Returns.Get(ctx, ret.ID, &client.ReadParams{Expand: []string{"return_line_items"}}))
	if withItems.Expand == nil || len(withItems.Expand.ReturnLineItems) != 2 {
		t.Fatalf("expand=return_line_items: %+v", withItems.Expand)
	}
}

// testProblems checks that failures are *client.Problem with their code
// and the members at fault.
func testProblems(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	_, err := c.Customers.List(ctx, &client.ListParams{Limit: 5000})
	p := problem(t, err, 400, client.CodeInvalidRequest, "limit")
	if msg, _ := p.Member("limit"); msg == "" || client.CodeOf(err) != client.CodeInvalidRequest {
		t.Fatalf("the problem of limit: %+v", p)
	}
	_, err = c.Customers.List(ctx, &client.ListParams{Filter: client.Filter{"price": client.Ops{"gte": 1}}})
	problem(t, err, 400, client.CodeInvalidRequest, "filter.price")
	_, err = c.Customers.Get(ctx, "no-such-customer", nil)
	problem(t, err, 404, client.CodeNotFound)
	must(c.Customers.Create(ctx, client.CustomerWrite{ID: "dup"}))
	_, err = c.Customers.Create(ctx, client.CustomerWrite{ID: "dup"})
	problem(t, err, 409, client.CodeConflict)
	_, err = c.ReturnLineItems.Create(ctx, client.ReturnLineItemWrite{ReturnID: client.Set("no-such-return")})
	problem(t, err, 400, client.CodeInvalidRequest, "return_id")
	_, err = c.UpdateReturn(ctx, "", client.ReturnWrite{Status: client.Set("open")})
	problem(t, err, 400, client.CodeInvalidRequest)
	_, err = c.ReturnLineItems.CreateMany(ctx, []client.ReturnLineItemWrite{{}, {ReturnID: client.Set("no-such-return")}})
	problem(t, err, 400, client.CodeInvalidRequest, "[1].return_id")
	if _, err := c.Customers.Patch(ctx, "", client.CustomerWrite{}); err == nil || client.CodeOf(err) != "" {
		t.Fatalf("a patch without an id must fail in the client, got %v", err)
	}
	// A bad token.
	_, err = client.New(e.base, client.WithToken("rk_wrong")).Customers.List(ctx, nil)
	problem(t, err, 401, client.CodeUnauthenticated)
}

// testIdempotency retries writes with a key.
func testIdempotency(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	var first, again client.Response
	a := must(c.Returns.Create(ctx, client.ReturnWrite{OrderID: client.Set("o-key")}, client.IdempotencyKey("key-1"), client.Capture(&first)))
	b := must(c.Returns.Create(ctx, client.ReturnWrite{OrderID: client.Set("o-key")}, client.IdempotencyKey("key-1"), client.Capture(&again)))
	if a.ID != b.ID || first.Replayed() || !again.Replayed() || !again.Created() {
		t.Fatalf("a replay must answer the same record: %s %s, replayed %v %v", a.ID, b.ID, first.Replayed(), again.Replayed())
	}
	n := must(c.Returns.List(ctx, &client.ListParams{Filter: client.Filter{"order_id": "o-key"}, Count: "exact"}))
	if deref(n.Paging.Total) != 1 {
		t.Fatalf("a replay wrote again: %d records", deref(n.Paging.Total))
	}
	_, err := c.Returns.Create(ctx, client.ReturnWrite{OrderID: client.Set("o-other")}, client.IdempotencyKey("key-1"))
	problem(t, err, 422, client.CodeIdempotencyKeyReused)
}

// testPreconditions writes under If-Match.
func testPreconditions(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	var resp client.Response
	r := must(c.Customers.Create(ctx, client.CustomerWrite{Email: client.Set("v1@example.com")}, client.Capture(&resp)))
	if resp.ETag() != `"1"` || r.Version != 1 {
		t.Fatalf("a created record's ETag: %q, version %d", resp.ETag(), r.Version)
	}
	_, err := c.Customers.Patch(ctx, r.ID, client.CustomerWrite{Email: client.Set("x@example.com")}, client.IfVersion(7))
	problem(t, err, 412, client.CodePreconditionFailed)
	r = must(c.Customers.Patch(ctx, r.ID, client.CustomerWrite{Email: client.Set("v2@example.com")}, client.IfMatch(resp.ETag()), client.Capture(&resp)))
	if r.Version != 2 || deref(r.Email) != "v2@example.com" || resp.ETag() != `"2"` {
		t.Fatalf("a patch under a matching If-Match: %+v, ETag %q", r, resp.ETag())
	}
	_, err = c.UpdatePurchaseOrder(ctx, "pre-po", client.PurchaseOrderWrite{}, client.IfMatch("*"))
	problem(t, err, 412, client.CodePreconditionFailed)
	// If-None-Match answers 304, a *Problem with that status.
	_, err = c.Customers.Get(ctx, r.ID, nil, client.Header("If-None-Match", `"2"`))
	if p, ok := err.(*client.Problem); !ok || p.Status != 304 {
		t.Fatalf("If-None-Match of the current version: %v", err)
	}
}

// testEvents reads the log, follows it, and streams it.
func testEvents(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	since := time.Now().Add(-time.Minute)
	// On PostgreSQL the log shows an event once every transaction begun
	// before it has ended, the cluster's included: other packages' tests
	// can hold it back for a moment, so the log is asked again.
	var page *client.EventPage
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		page = must(c.Events.List(ctx, &client.EventParams{Limit: 2, Types: []string{"customers.created"}, Since: since}))
		if len(page.Events) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if len(page.Events) != 2 || page.Events[0].Type != "customers.created" || page.Paging.NextCursor == nil ||
		page.Paging.ResumeCursor != *page.Paging.NextCursor {
		t.Fatalf("a page of events: %+v", page)
	}
	var created client.Customer
	if err := page.Events[0].Decode(&created); err != nil || created.ID == "" {
		t.Fatalf("an event's record: %+v, %v", created, err)
	}
	var n int
	for deadline := time.Now().Add(10 * time.Second); n < 10 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		n = len(collect(t, c.Events.All(ctx, &client.EventParams{Limit: 2, Types: []string{"customers.created"}}), func(ev client.Event) string { return ev.ID }))
	}
	if n < 10 {
		t.Fatalf("All read %d customers.created events", n)
	}

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stream := must(c.Events.Stream(sctx, &client.EventParams{Types: []string{"vendors.created"}}))
	defer stream.Close()
	v := must(c.Vendors.Create(ctx, client.VendorWrite{VendorName: client.Set("streamed")}))
	ev := must(stream.Next())
	var got client.Vendor
	if err := ev.Decode(&got); err != nil || ev.Type != "vendors.created" || got.ID != v.ID || stream.Cursor == "" {
		t.Fatalf("the streamed event: %+v (%v), cursor %q", ev, err, stream.Cursor)
	}
	// Resuming after the cursor reads what came after it.
	after := must(c.Events.List(ctx, &client.EventParams{Cursor: stream.Cursor}))
	for _, ev := range after.Events {
		if ev.Type == "vendors.created" {
			t.Fatalf("the page after the stream's cursor repeats %+v", ev)
		}
	}
}

// testWebhooks manages a webhook and its deliveries.
func testWebhooks(t *testing.T, e *env) {
	ctx, c := context.Background(), e.c
	desc := "e2e"
	w := must(c.Webhooks.Create(ctx, client.WebhookInput{URL: e.hooks.URL, Events: []string{"returns.created"}, Description: &desc}))
	if w.ID == "" || w.Secret == "" || !w.Enabled || w.URL != e.hooks.URL {
		t.Fatalf("a created webhook: %+v", w)
	}
	if got := must(c.Webhooks.Get(ctx, w.ID)); got.ID != w.ID || deref(got.Description) != "e2e" {
		t.Fatalf("Get: %+v", got)
	}
	up := must(c.Webhooks.Update(ctx, w.ID, client.WebhookPatch{Events: client.Set([]string{"*"}), Description: client.Null[string]()}))
	if !slices.Equal(up.Events, []string{"*"}) || up.Description != nil || up.Version != 2 {
		t.Fatalf("Update: %+v", up)
	}
	if page := must(c.Webhooks.List(ctx, nil)); len(page.Webhooks) != 1 || page.Webhooks[0].ID != w.ID {
		t.Fatalf("List: %+v", page)
	}
	if ids := collect(t, c.Webhooks.All(ctx, &client.PageParams{Limit: 1}), func(w client.Webhook) string { return w.ID }); len(ids) != 1 {
		t.Fatalf("All: %v", ids)
	}
	d := must(c.Webhooks.Test(ctx, w.ID))
	if d.ID == "" || d.Attempt != 1 {
		t.Fatalf("Test: %+v", d)
	}
	deliveries := must(c.Webhooks.Deliveries(ctx, w.ID, nil))
	if len(deliveries.Deliveries) == 0 {
		t.Fatalf("Deliveries: %+v", deliveries)
	}
	if gone := must(c.Webhooks.Delete(ctx, w.ID)); gone.ID != w.ID || !gone.Deleted {
		t.Fatalf("Delete: %+v", gone)
	}
	_, err := c.Webhooks.Get(ctx, w.ID)
	problem(t, err, 404, client.CodeNotFound)
}

// testMe: the client says who it signed in as, and what it may do.
func testMe(t *testing.T, e *env) {
	me := must(e.c.Me(context.Background()))
	if me.Role != "admin" || me.Via != "token" || me.Team != "default" || me.Scope != "write" || len(me.Can["returns"]) != 5 {
		t.Fatalf("me: %+v", me)
	}
	// WithRole names a role the token does not grant: 403, as the server says.
	other := client.New(e.base, client.WithToken(e.token), client.WithRole("viewer"))
	var p *client.Problem
	if _, err := other.Me(context.Background()); !errors.As(err, &p) || p.Status != 403 || p.Code != client.CodePermissionDenied {
		t.Fatalf("a role the token does not grant: %v", err)
	}
}

package events_test

import (
	"net/url"
	"records/internal/servertest"
	"slices"
	"testing"
)

// Every page of the event log, a history and the webhook lists answers
// paging.resume_cursor, the position after its last item (the request's
// own when it has none): a follower that keeps it and asks it again later,
// with whatever limit, reads only what came after — never the partial page
// it already holds again.
func TestResumeCursorsNeverReread(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		ids := func(r *servertest.Response, member string) []string {
			var out []string
			for _, e := range r.List(member) {
				out = append(out, e.(map[string]any)["id"].(string))
			}
			return out
		}
		// page waits out the log's hold-back until the page answers n items.
		page := func(path string, n int) *servertest.Response {
			t.Helper()
			r := h.Call("GET", path, "").Want(200)
			for try := 0; len(r.List("events")) < n && try < 500; try++ {
				r = h.Call("GET", path, "").Want(200)
			}
			return r
		}
		resume := func(r *servertest.Response) string {
			t.Helper()
			c, ok := r.At("paging", "resume_cursor").(string)
			if !ok || c == "" {
				t.Fatalf("no paging.resume_cursor: %s", r.Body)
			}
			return url.QueryEscape(c)
		}

		// An empty log without a cursor: resume_cursor is its start.
		r := h.Call("GET", "/v1/events?limit=3", "").Want(200)
		start := resume(r)
		h.Call("POST", "/v1/customers", `[{"id":"c1"},{"id":"c2"}]`).Want(201)
		r = page("/v1/events?limit=3&cursor="+start, 2)
		first := ids(r, "events")
		if len(first) != 2 || r.At("paging", "next_cursor") != nil {
			t.Fatalf("the first page: %s", r.Body)
		}
		held := resume(r)
		// Asked again at once: the request's own position, nothing read twice.
		if again := h.Call("GET", "/v1/events?limit=3&cursor="+held, "").Want(200); len(again.List("events")) != 0 || resume(again) == "" {
			t.Fatalf("resuming with nothing new: %s", again.Body)
		}
		h.Call("POST", "/v1/customers", `[{"id":"c3"},{"id":"c4"}]`).Want(201)
		r = page("/v1/events?limit=5&cursor="+held, 2)
		if next := ids(r, "events"); len(next) != 2 || slices.ContainsFunc(next, func(id string) bool { return slices.Contains(first, id) }) {
			t.Fatalf("resumed with another limit: %v after %v", next, first)
		}
		all := ids(page("/v1/events?limit=10", 4), "events")
		if len(all) != 4 {
			t.Fatalf("the log: %v", all)
		}

		// A narrowed read answering less than a page resumes past every
		// event it passed over, matching or not: a since after them all,
		// or a type none has, never leads back to the log's start.
		for _, narrowed := range []string{"since=9999-12-31T23:59:59Z", "filter[type]=customers.deleted"} {
			r = h.Call("GET", "/v1/events?limit=3&"+narrowed, "").Want(200)
			if len(r.List("events")) != 0 {
				t.Fatalf("%s: %s", narrowed, r.Body)
			}
			if again := h.Call("GET", "/v1/events?limit=10&cursor="+resume(r), "").Want(200); len(again.List("events")) != 0 {
				t.Fatalf("resuming %s reads the log again: %s", narrowed, again.Body)
			}
		}

		// A history.
		r = h.Call("GET", "/v1/customers/c1/history?limit=3", "").Want(200)
		if len(r.List("events")) != 1 {
			t.Fatalf("history: %s", r.Body)
		}
		held = resume(r)
		h.Call("PATCH", "/v1/customers/c1", `{"email":"a@example.com"}`).Want(200)
		r = h.Call("GET", "/v1/customers/c1/history?limit=7&cursor="+held, "").Want(200)
		if evs := r.List("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.updated" {
			t.Fatalf("history resumed: %s", r.Body)
		}

		// The webhook lists.
		r = h.Call("GET", "/v1/webhooks?limit=3", "").Want(200)
		held = resume(r)
		hook := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/a","events":["*"]}`).Want(201).Obj()["id"].(string)
		r = h.Call("GET", "/v1/webhooks?limit=3&cursor="+held, "").Want(200)
		if got := ids(r, "webhooks"); len(got) != 1 || got[0] != hook {
			t.Fatalf("webhooks resumed: %s", r.Body)
		}
		r = h.Call("GET", "/v1/webhooks/"+hook+"/deliveries?limit=3", "").Want(200)
		if len(r.List("deliveries")) != 0 {
			t.Fatalf("deliveries: %s", r.Body)
		}
		resume(r)
	})
}

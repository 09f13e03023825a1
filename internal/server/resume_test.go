package server_test

import (
	"net/url"
	"slices"
	"testing"
)

// Every page of the event log, a history and the webhook lists answers
// paging.resume_cursor, the position after its last item (the request's
// own when it has none): a follower that keeps it and asks it again later,
// with whatever limit, reads only what came after — never the partial page
// it already holds again.
func TestResumeCursorsNeverReread(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ids := func(r *response, member string) []string {
			var out []string
			for _, e := range r.list(member) {
				out = append(out, e.(map[string]any)["id"].(string))
			}
			return out
		}
		// page waits out the log's hold-back until the page answers n items.
		page := func(path string, n int) *response {
			t.Helper()
			r := h.call("GET", path, "").want(200)
			for try := 0; len(r.list("events")) < n && try < 500; try++ {
				r = h.call("GET", path, "").want(200)
			}
			return r
		}
		resume := func(r *response) string {
			t.Helper()
			c, ok := r.at("paging", "resume_cursor").(string)
			if !ok || c == "" {
				t.Fatalf("no paging.resume_cursor: %s", r.Body)
			}
			return url.QueryEscape(c)
		}

		// An empty log without a cursor: resume_cursor is its start.
		r := h.call("GET", "/v1/events?limit=3", "").want(200)
		start := resume(r)
		h.call("POST", "/v1/customers", `[{"id":"c1"},{"id":"c2"}]`).want(201)
		r = page("/v1/events?limit=3&cursor="+start, 2)
		first := ids(r, "events")
		if len(first) != 2 || r.at("paging", "next_cursor") != nil {
			t.Fatalf("the first page: %s", r.Body)
		}
		held := resume(r)
		// Asked again at once: the request's own position, nothing read twice.
		if again := h.call("GET", "/v1/events?limit=3&cursor="+held, "").want(200); len(again.list("events")) != 0 || resume(again) == "" {
			t.Fatalf("resuming with nothing new: %s", again.Body)
		}
		h.call("POST", "/v1/customers", `[{"id":"c3"},{"id":"c4"}]`).want(201)
		r = page("/v1/events?limit=5&cursor="+held, 2)
		if next := ids(r, "events"); len(next) != 2 || slices.ContainsFunc(next, func(id string) bool { return slices.Contains(first, id) }) {
			t.Fatalf("resumed with another limit: %v after %v", next, first)
		}
		all := ids(page("/v1/events?limit=10", 4), "events")
		if len(all) != 4 {
			t.Fatalf("the log: %v", all)
		}

		// A history.
		r = h.call("GET", "/v1/customers/c1/history?limit=3", "").want(200)
		if len(r.list("events")) != 1 {
			t.Fatalf("history: %s", r.Body)
		}
		held = resume(r)
		h.call("PATCH", "/v1/customers/c1", `{"email":"a@example.com"}`).want(200)
		r = h.call("GET", "/v1/customers/c1/history?limit=7&cursor="+held, "").want(200)
		if evs := r.list("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.updated" {
			t.Fatalf("history resumed: %s", r.Body)
		}

		// The webhook lists.
		r = h.call("GET", "/v1/webhooks?limit=3", "").want(200)
		held = resume(r)
		hook := h.call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/a","events":["*"]}`).want(201).obj()["id"].(string)
		r = h.call("GET", "/v1/webhooks?limit=3&cursor="+held, "").want(200)
		if got := ids(r, "webhooks"); len(got) != 1 || got[0] != hook {
			t.Fatalf("webhooks resumed: %s", r.Body)
		}
		r = h.call("GET", "/v1/webhooks/"+hook+"/deliveries?limit=3", "").want(200)
		if len(r.list("deliveries")) != 0 {
			t.Fatalf("deliveries: %s", r.Body)
		}
		resume(r)
	})
}

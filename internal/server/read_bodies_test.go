package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// waitEvents polls the log until the filter (a body) answers n events: on
// PostgreSQL a transaction of the database (another test's) holds the log
// back until it ends.
func waitEvents(t *testing.T, h *harness, body string, n int) *response {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r := h.call("GET", "/v1/events", body).want(200)
		if len(r.list("events")) >= n || time.Now().After(deadline) {
			return r
		}
	}
}

// The event log takes its parameters from the body as a record list does,
// the body winning over the query string; the body is read as every body
// is: unknown members, malformed JSON and other media types are refused.
func TestEventLogTakesABody(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `[{"id":"a"},{"id":"b"},{"id":"c"}]`).want(201)
		h.call("PATCH", "/v1/customers/a", `{"email":"a@example.com"}`).want(200)
		waitEvents(t, h, `{"filter":{"type":"customers.updated"}}`, 1)

		r := h.call("GET", "/v1/events", `{"limit":2,"filter":{"type":"customers.created"}}`).want(200)
		if evs := r.list("events"); len(evs) != 2 || r.at("paging", "has_more") != true {
			t.Fatalf("limit and filter of the body: %s", r.Body)
		}
		for _, e := range r.list("events") {
			if e.(map[string]any)["type"] != "customers.created" {
				t.Fatalf("the body's filter is not applied: %s", r.Body)
			}
		}
		// The next page, by the body's cursor.
		next := r.at("paging", "next_cursor").(string)
		r = h.call("GET", "/v1/events", fmt.Sprintf(`{"cursor":%q,"filter":{"type":{"eq":"customers.created"}}}`, next)).want(200)
		if evs := r.list("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.created" {
			t.Fatalf("the page after, by the body's cursor: %s", r.Body)
		}
		// The body wins over the query string.
		r = h.call("GET", "/v1/events?limit=1&filter[type]=customers.created", `{"limit":3,"filter":{"type":{"in":["customers.updated"]}}}`).want(200)
		if evs := r.list("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.updated" || r.at("paging", "limit") != json.Number("3") {
			t.Fatalf("the body must win: %s", r.Body)
		}
		h.call("GET", "/v1/events", `{"since":"2999-01-01T00:00:00Z"}`).want(200)
		if evs := h.call("GET", "/v1/events", `{"since":"2999-01-01T00:00:00Z"}`).list("events"); len(evs) != 0 {
			t.Fatalf("since of the body: %v", evs)
		}
		h.call("GET", "/v1/events", "").want(200) // an empty body is {}

		h.call("GET", "/v1/events", `{"limt":2}`).problem(400, "invalid_request", "limt").mentions(`did you mean \"limit\"`)
		h.call("GET", "/v1/events", `{"limit":0,"filtr":{},"since":"soon"}`).problem(400, "invalid_request", "limit", "filtr", "since")
		h.call("GET", "/v1/events", `{"filter":{"typ":"customers.created"}}`).problem(400, "invalid_request", "filter.typ")
		h.call("GET", "/v1/events", `{"filter":{"type":{"in":["customers.created","nope"]}}}`).problem(400, "invalid_request", "filter.type.in[1]")
		h.call("GET", "/v1/events", `{"filter":{"type":{"ne":"customers.created"}}}`).problem(400, "invalid_request", "filter.type.ne")
		h.call("GET", "/v1/events", `{"filter":"customers.created"}`).problem(400, "invalid_request", "filter")
		h.call("GET", "/v1/events?limit=1", `{"bogus":`).problem(400, "invalid_json")
		h.call("GET", "/v1/events", `{"limit":2}`, "Content-Type", "text/plain").problem(415, "unsupported_media_type")
		// An empty cursor is refused, as a record list refuses it.
		h.call("GET", "/v1/customers?cursor=", "").problem(400, "invalid_request", "cursor")
		h.call("GET", "/v1/events?cursor=", "").problem(400, "invalid_request", "cursor")
		h.call("GET", "/v1/events", `{"cursor":""}`).problem(400, "invalid_request", "cursor")
		h.call("GET", "/v1/events?filter[color]=red", "").problem(400, "invalid_request", "filter.color")
	})
}

// A record's history takes its parameters from the body too.
func TestHistoryTakesABody(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"h1"}`).want(201)
		h.call("PATCH", "/v1/customers/h1", `{"email":"a@example.com"}`).want(200)
		var r *response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			r = h.call("GET", "/v1/customers/h1/history", `{"limit":1}`).want(200)
			if r.at("paging", "has_more") == true || time.Now().After(deadline) {
				break
			}
		}
		if evs := r.list("events"); len(evs) != 1 || r.at("paging", "has_more") != true {
			t.Fatalf("the body's limit: %s", r.Body)
		}
		h.call("GET", "/v1/customers/h1/history", `{"limitt":1}`).problem(400, "invalid_request", "limitt")
		h.call("GET", "/v1/customers/h1/history", `{"filter":{}}`).problem(400, "invalid_request", "filter")
		h.call("GET", "/v1/customers/h1/history", `{"limit":`).problem(400, "invalid_json")
		h.call("GET", "/v1/customers/h1/history", `{"limit":1}`, "Content-Type", "text/plain").problem(415, "unsupported_media_type")
		h.call("GET", "/v1/customers/h1/history?cursor=", "").problem(400, "invalid_request", "cursor")
	})
}

// The webhooks' lists take their parameters from the body too.
func TestWebhookListsTakeABody(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		var id string
		for i := range 2 {
			id = h.call("POST", "/v1/webhooks", fmt.Sprintf(`{"url":"https://93.184.215.14/%d","events":["*"]}`, i)).want(201).at("id").(string)
		}
		r := h.call("GET", "/v1/webhooks?limit=2", `{"limit":1}`).want(200)
		if l := r.list("webhooks"); len(l) != 1 || r.at("paging", "has_more") != true {
			t.Fatalf("the body's limit: %s", r.Body)
		}
		next := r.at("paging", "next_cursor").(string)
		if l := h.call("GET", "/v1/webhooks", fmt.Sprintf(`{"cursor":%q}`, next)).want(200).list("webhooks"); len(l) != 1 {
			t.Fatalf("the body's cursor: %v", l)
		}
		h.call("GET", "/v1/webhooks", `{"limt":1}`).problem(400, "invalid_request", "limt")
		h.call("GET", "/v1/webhooks", `[`).problem(400, "invalid_json")
		h.call("GET", "/v1/webhooks", `{"limit":1}`, "Content-Type", "text/plain").problem(415, "unsupported_media_type")
		h.call("GET", "/v1/webhooks?cursor=", "").problem(400, "invalid_request", "cursor")

		h.call("POST", "/v1/webhooks/"+id+"/test", "").want(202)
		h.call("POST", "/v1/webhooks/"+id+"/test", "").want(202)
		d := h.call("GET", "/v1/webhooks/"+id+"/deliveries", `{"limit":1}`).want(200)
		if l := d.list("deliveries"); len(l) != 1 || d.at("paging", "has_more") != true {
			t.Fatalf("deliveries, the body's limit: %s", d.Body)
		}
		h.call("GET", "/v1/webhooks/"+id+"/deliveries", `{"cursr":"x"}`).problem(400, "invalid_request", "cursr")
		h.call("GET", "/v1/webhooks/"+id+"/deliveries", `{"limit":1}`, "Content-Type", "text/plain").problem(415, "unsupported_media_type")
		h.call("GET", "/v1/webhooks/"+id+"/deliveries?cursor=", "").problem(400, "invalid_request", "cursor")
	})
}

// The stream reads its body as the log does (a fetch-based client can send
// one): its problems are answered before anything is streamed. (Each
// request is cut off after 2 s, so a stream that starts fails the test
// rather than hanging it.)
func TestStreamTakesABody(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		refused := func(path, body, code, member string) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			req := httptest.NewRequest("GET", path, strings.NewReader(body)).WithContext(ctx)
			req.Header.Set("Authorization", "Bearer "+h.token)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, req)
			var p struct {
				Code   string
				Errors []struct{ Member string }
			}
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if w.Code != 400 || p.Code != code || (member != "" && (len(p.Errors) == 0 || p.Errors[0].Member != member)) {
				t.Errorf("GET %s %s: %d %.300s, want 400 %s naming %q", path, body, w.Code, w.Body, code, member)
			}
		}
		refused("/v1/events/stream", `{"filtr":{"type":"customers.created"}}`, "invalid_request", "filtr")
		refused("/v1/events/stream", `{"limit":5}`, "invalid_request", "limit")
		refused("/v1/events/stream", `{"filter":{"type":"customers.exploded"}}`, "invalid_request", "filter.type")
		refused("/v1/events/stream", `{`, "invalid_json", "")
		refused("/v1/events/stream?cursor=", "", "invalid_request", "cursor")
	})
}

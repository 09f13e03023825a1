package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"records/internal/servertest"
	"strings"
	"testing"
	"time"
)

// waitEvents polls the log until the filter (a body) answers n events: on
// PostgreSQL a transaction of the database (another test's) holds the log
// back until it ends.
func waitEvents(t *testing.T, h *servertest.Harness, body string, n int) *servertest.Response {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r := h.Call("GET", "/v1/events", body).Want(200)
		if len(r.List("events")) >= n || time.Now().After(deadline) {
			return r
		}
	}
}

// The event log takes its parameters from the body as a record list does,
// the body winning over the query string; the body is read as every body
// is: unknown members, malformed JSON and other media types are refused.
func TestEventLogTakesABody(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/customers", `[{"id":"a"},{"id":"b"},{"id":"c"}]`).Want(201)
		h.Call("PATCH", "/v1/customers/a", `{"email":"a@example.com"}`).Want(200)
		waitEvents(t, h, `{"filter":{"type":"customers.updated"}}`, 1)

		r := h.Call("GET", "/v1/events", `{"limit":2,"filter":{"type":"customers.created"}}`).Want(200)
		if evs := r.List("events"); len(evs) != 2 || r.At("paging", "has_more") != true {
			t.Fatalf("limit and filter of the body: %s", r.Body)
		}
		for _, e := range r.List("events") {
			if e.(map[string]any)["type"] != "customers.created" {
				t.Fatalf("the body's filter is not applied: %s", r.Body)
			}
		}
		// The next page, by the body's cursor.
		next := r.At("paging", "next_cursor").(string)
		r = h.Call("GET", "/v1/events", fmt.Sprintf(`{"cursor":%q,"filter":{"type":{"eq":"customers.created"}}}`, next)).Want(200)
		if evs := r.List("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.created" {
			t.Fatalf("the page after, by the body's cursor: %s", r.Body)
		}
		// The body wins over the query string.
		r = h.Call("GET", "/v1/events?limit=1&filter[type]=customers.created", `{"limit":3,"filter":{"type":{"in":["customers.updated"]}}}`).Want(200)
		if evs := r.List("events"); len(evs) != 1 || evs[0].(map[string]any)["type"] != "customers.updated" || r.At("paging", "limit") != json.Number("3") {
			t.Fatalf("the body must win: %s", r.Body)
		}
		h.Call("GET", "/v1/events", `{"since":"2999-01-01T00:00:00Z"}`).Want(200)
		if evs := h.Call("GET", "/v1/events", `{"since":"2999-01-01T00:00:00Z"}`).List("events"); len(evs) != 0 {
			t.Fatalf("since of the body: %v", evs)
		}
		h.Call("GET", "/v1/events", "").Want(200) // an empty body is {}

		h.Call("GET", "/v1/events", `{"limt":2}`).Problem(400, "invalid_request", "limt").Mentions(`did you mean \"limit\"`)
		h.Call("GET", "/v1/events", `{"limit":0,"filtr":{},"since":"soon"}`).Problem(400, "invalid_request", "limit", "filtr", "since")
		h.Call("GET", "/v1/events", `{"filter":{"typ":"customers.created"}}`).Problem(400, "invalid_request", "filter.typ")
		h.Call("GET", "/v1/events", `{"filter":{"type":{"in":["customers.created","nope"]}}}`).Problem(400, "invalid_request", "filter.type.in[1]")
		h.Call("GET", "/v1/events", `{"filter":{"type":{"ne":"customers.created"}}}`).Problem(400, "invalid_request", "filter.type.ne")
		h.Call("GET", "/v1/events", `{"filter":"customers.created"}`).Problem(400, "invalid_request", "filter")
		h.Call("GET", "/v1/events?limit=1", `{"bogus":`).Problem(400, "invalid_json")
		h.Call("GET", "/v1/events", `{"limit":2}`, "Content-Type", "text/plain").Problem(415, "unsupported_media_type")
		// An empty cursor is refused, as a record list refuses it.
		h.Call("GET", "/v1/customers?cursor=", "").Problem(400, "invalid_request", "cursor")
		h.Call("GET", "/v1/events?cursor=", "").Problem(400, "invalid_request", "cursor")
		h.Call("GET", "/v1/events", `{"cursor":""}`).Problem(400, "invalid_request", "cursor")
		h.Call("GET", "/v1/events?filter[color]=red", "").Problem(400, "invalid_request", "filter.color")
	})
}

// A record's history takes its parameters from the body too.
func TestHistoryTakesABody(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/customers", `{"id":"h1"}`).Want(201)
		h.Call("PATCH", "/v1/customers/h1", `{"email":"a@example.com"}`).Want(200)
		var r *servertest.Response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			r = h.Call("GET", "/v1/customers/h1/history", `{"limit":1}`).Want(200)
			if r.At("paging", "has_more") == true || time.Now().After(deadline) {
				break
			}
		}
		if evs := r.List("events"); len(evs) != 1 || r.At("paging", "has_more") != true {
			t.Fatalf("the body's limit: %s", r.Body)
		}
		h.Call("GET", "/v1/customers/h1/history", `{"limitt":1}`).Problem(400, "invalid_request", "limitt")
		h.Call("GET", "/v1/customers/h1/history", `{"filter":{}}`).Problem(400, "invalid_request", "filter")
		h.Call("GET", "/v1/customers/h1/history", `{"limit":`).Problem(400, "invalid_json")
		h.Call("GET", "/v1/customers/h1/history", `{"limit":1}`, "Content-Type", "text/plain").Problem(415, "unsupported_media_type")
		h.Call("GET", "/v1/customers/h1/history?cursor=", "").Problem(400, "invalid_request", "cursor")
	})
}

// The stream reads its body as the log does (a fetch-based client can send
// one): its problems are answered before anything is streamed. (Each
// request is cut off after 2 s, so a stream that starts fails the test
// rather than hanging it.)
func TestStreamTakesABody(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		refused := func(path, body, code, member string) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			req := httptest.NewRequest("GET", path, strings.NewReader(body)).WithContext(ctx)
			req.Header.Set("Authorization", "Bearer "+h.Token)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			h.Srv.Handler().ServeHTTP(w, req)
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

package server_test

import (
	"strings"
	"testing"
)

// A webhook body's problems are reported at once, each naming its member,
// as a record body's are.
func TestWebhookCreateReportsEveryProblem(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/webhooks", `{"url":"ftp://x","events":["bogus"],"description":5}`).
			problem(400, "invalid_request", "url", "events[0]", "description")
		h.call("POST", "/v1/webhooks", `{"description":5,"colour":1}`).
			problem(400, "invalid_request", "url", "events", "description", "colour")
		h.call("POST", "/v1/webhooks", `{"url":"http://127.0.0.1/","events":["*","*","returns.made"]}`).
			problem(400, "invalid_request", "url", "events[1]", "events[2]")
		wh := h.call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).want(201).obj()
		h.call("PATCH", "/v1/webhooks/"+wh["id"].(string), `{"url":"http://10.0.0.1/","events":[],"enabled":"yes"}`).
			problem(400, "invalid_request", "url", "events", "enabled")
	})
}

// A host that does not resolve is named, and nothing of the server's
// resolver (its address, the lookup's wording) reaches the client.
func TestWebhookUnresolvableHost(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		r := h.call("POST", "/v1/webhooks", `{"url":"https://nonexistent.invalid/","events":["*"]}`).problem(400, "invalid_request", "url")
		detail := r.at("detail").(string)
		if !strings.Contains(detail, "the host nonexistent.invalid") {
			t.Errorf("the detail does not name the host: %q", detail)
		}
		for _, leak := range []string{"lookup", ":53", "no such host"} {
			if strings.Contains(detail, leak) {
				t.Errorf("the detail tells of the resolver (%q): %q", leak, detail)
			}
		}
	})
}

// A webhook's create answers its version as ETag, as its read and its
// change do (and a replay by Idempotency-Key the same).
func TestWebhookCreateHasAnETag(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		created := h.call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).want(201)
		id := created.at("id").(string)
		if tag := created.Header.Get("ETag"); tag != `"1"` {
			t.Fatalf("create: ETag %q, want \"1\"", tag)
		}
		if tag := h.call("GET", "/v1/webhooks/"+id, "").want(200).Header.Get("ETag"); tag != created.Header.Get("ETag") {
			t.Fatalf("read: ETag %q differs from the create's", tag)
		}
		h.call("GET", "/v1/webhooks/"+id, "", "If-None-Match", created.Header.Get("ETag")).want(304)
		body := `{"url":"https://93.184.215.14/keyed","events":["*"]}`
		first := h.call("POST", "/v1/webhooks", body, "Idempotency-Key", "etag-replay").want(201)
		again := h.call("POST", "/v1/webhooks", body, "Idempotency-Key", "etag-replay").want(201)
		if first.Header.Get("ETag") != `"1"` || again.Header.Get("ETag") != `"1"` || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("keyed create: ETag %q, replay %q (%v)", first.Header.Get("ETag"), again.Header.Get("ETag"), again.Header)
		}
	})
}

// A webhook's delete and test take no members, as a record's delete takes
// none but the id: no body, spaces or an empty object are accepted alike
// (a {} was refused as "a delete takes no body"), and each member a body
// names is a 400 naming it, as DELETE /v1/vendors/:id answers.
func TestWebhookDeleteAndTestTakeAnEmptyObject(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/vendors", `{"id":"v-1"}`).want(201)
		h.call("DELETE", "/v1/vendors/v-1", `{"x":1}`).problem(400, "invalid_request", "x")
		h.call("DELETE", "/v1/vendors/v-1", `{}`).want(200)
		webhook := func() string {
			return h.call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).want(201).at("id").(string)
		}
		id := webhook()
		for _, body := range []string{"", "  \n", "{}", " { } "} {
			h.call("POST", "/v1/webhooks/"+id+"/test", body).want(202)
		}
		for _, path := range []string{"/v1/webhooks/" + id + "/test", "/v1/webhooks/" + id} {
			method := "POST"
			if !strings.HasSuffix(path, "/test") {
				method = "DELETE"
			}
			h.call(method, path, `{"x":1}`).problem(400, "invalid_request", "x")
			h.call(method, path, `{"x":1,"id":"`+id+`"}`).problem(400, "invalid_request", "x", "id")
			h.call(method, path, `{"x":1,"x":2}`).problem(400, "invalid_request", "x").mentions("more than once")
			h.call(method, path, `[]`).problem(400, "invalid_request").mentions("must be a JSON object")
			h.call(method, path, `{`).problem(400, "invalid_json")
		}
		h.call("GET", "/v1/webhooks/"+id, "").want(200) // the refused deletes deleted nothing
		h.call("DELETE", "/v1/webhooks/"+id, `{}`).want(200)
		h.call("GET", "/v1/webhooks/"+id, "").problem(404, "not_found")
		for _, body := range []string{"", " \t", " { } "} {
			id := webhook()
			h.call("DELETE", "/v1/webhooks/"+id, body).want(200)
			h.call("GET", "/v1/webhooks/"+id, "").problem(404, "not_found")
		}
	})
}

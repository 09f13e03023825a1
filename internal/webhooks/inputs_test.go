package webhooks_test

import (
	"records/internal/servertest"
	"strings"
	"testing"
)

// A webhook body's problems are reported at once, each naming its member,
// as a record body's are.
func TestWebhookCreateReportsEveryProblem(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/webhooks", `{"url":"ftp://x","events":["bogus"],"description":5}`).
			Problem(400, "invalid_request", "url", "events[0]", "description")
		h.Call("POST", "/v1/webhooks", `{"description":5,"colour":1}`).
			Problem(400, "invalid_request", "url", "events", "description", "colour")
		h.Call("POST", "/v1/webhooks", `{"url":"http://127.0.0.1/","events":["*","*","returns.made"]}`).
			Problem(400, "invalid_request", "url", "events[1]", "events[2]")
		wh := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).Want(201).Obj()
		h.Call("PATCH", "/v1/webhooks/"+wh["id"].(string), `{"url":"http://10.0.0.1/","events":[],"enabled":"yes"}`).
			Problem(400, "invalid_request", "url", "events", "enabled")
	})
}

// A host that does not resolve is named, and nothing of the server's
// resolver (its address, the lookup's wording) reaches the client.
func TestWebhookUnresolvableHost(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		r := h.Call("POST", "/v1/webhooks", `{"url":"https://nonexistent.invalid/","events":["*"]}`).Problem(400, "invalid_request", "url")
		detail := r.At("detail").(string)
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
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		created := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).Want(201)
		id := created.At("id").(string)
		if tag := created.Header.Get("ETag"); tag != `"1"` {
			t.Fatalf("create: ETag %q, want \"1\"", tag)
		}
		if tag := h.Call("GET", "/v1/webhooks/"+id, "").Want(200).Header.Get("ETag"); tag != created.Header.Get("ETag") {
			t.Fatalf("read: ETag %q differs from the create's", tag)
		}
		h.Call("GET", "/v1/webhooks/"+id, "", "If-None-Match", created.Header.Get("ETag")).Want(304)
		body := `{"url":"https://93.184.215.14/keyed","events":["*"]}`
		first := h.Call("POST", "/v1/webhooks", body, "Idempotency-Key", "etag-replay").Want(201)
		again := h.Call("POST", "/v1/webhooks", body, "Idempotency-Key", "etag-replay").Want(201)
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
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/vendors", `{"id":"v-1"}`).Want(201)
		h.Call("DELETE", "/v1/vendors/v-1", `{"x":1}`).Problem(400, "invalid_request", "x")
		h.Call("DELETE", "/v1/vendors/v-1", `{}`).Want(200)
		webhook := func() string {
			return h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).Want(201).At("id").(string)
		}
		id := webhook()
		for _, body := range []string{"", "  \n", "{}", " { } "} {
			h.Call("POST", "/v1/webhooks/"+id+"/test", body).Want(202)
		}
		for _, path := range []string{"/v1/webhooks/" + id + "/test", "/v1/webhooks/" + id} {
			method := "POST"
			if !strings.HasSuffix(path, "/test") {
				method = "DELETE"
			}
			h.Call(method, path, `{"x":1}`).Problem(400, "invalid_request", "x")
			h.Call(method, path, `{"x":1,"id":"`+id+`"}`).Problem(400, "invalid_request", "x", "id")
			h.Call(method, path, `{"x":1,"x":2}`).Problem(400, "invalid_request", "x").Mentions("more than once")
			h.Call(method, path, `[]`).Problem(400, "invalid_request").Mentions("must be a JSON object")
			h.Call(method, path, `{`).Problem(400, "invalid_json")
		}
		h.Call("GET", "/v1/webhooks/"+id, "").Want(200) // the refused deletes deleted nothing
		h.Call("DELETE", "/v1/webhooks/"+id, `{}`).Want(200)
		h.Call("GET", "/v1/webhooks/"+id, "").Problem(404, "not_found")
		for _, body := range []string{"", " \t", " { } "} {
			id := webhook()
			h.Call("DELETE", "/v1/webhooks/"+id, body).Want(200)
			h.Call("GET", "/v1/webhooks/"+id, "").Problem(404, "not_found")
		}
	})
}

// A URL refused as private names the flag that allows it, in the member's
// problem and the detail, when a webhook is made and when it is changed:
// a developer whose endpoint is local learns the way on.
func TestAPrivateWebhookURLNamesTheFlag(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		wh := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["*"]}`).Want(201).Obj()
		for _, r := range []*servertest.Response{
			h.Call("POST", "/v1/webhooks", `{"url":"http://127.0.0.1:9000/hook","events":["*"]}`),
			h.Call("PATCH", "/v1/webhooks/"+wh["id"].(string), `{"url":"http://localhost:9000/hook"}`),
		} {
			r.Problem(400, "invalid_request", "url")
			for _, at := range [][]any{{"detail"}, {"errors", 0, "problem"}} {
				if s := r.At(at...).(string); !strings.Contains(s, "--webhook-allow-private") {
					t.Errorf("%v does not name --webhook-allow-private: %q", at, s)
				}
			}
		}
	})
}

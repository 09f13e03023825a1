package webhooks_test

import (
	"fmt"
	"records/internal/servertest"
	"testing"
)

// The webhooks' lists take their parameters from the body too.
func TestWebhookListsTakeABody(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		var id string
		for i := range 2 {
			id = h.Call("POST", "/v1/webhooks", fmt.Sprintf(`{"url":"https://93.184.215.14/%d","events":["*"]}`, i)).Want(201).At("id").(string)
		}
		r := h.Call("GET", "/v1/webhooks?limit=2", `{"limit":1}`).Want(200)
		if l := r.List("webhooks"); len(l) != 1 || r.At("paging", "has_more") != true {
			t.Fatalf("the body's limit: %s", r.Body)
		}
		next := r.At("paging", "next_cursor").(string)
		if l := h.Call("GET", "/v1/webhooks", fmt.Sprintf(`{"cursor":%q}`, next)).Want(200).List("webhooks"); len(l) != 1 {
			t.Fatalf("the body's cursor: %v", l)
		}
		h.Call("GET", "/v1/webhooks", `{"limt":1}`).Problem(400, "invalid_request", "limt")
		h.Call("GET", "/v1/webhooks", `[`).Problem(400, "invalid_json")
		h.Call("GET", "/v1/webhooks", `{"limit":1}`, "Content-Type", "text/plain").Problem(415, "unsupported_media_type")
		h.Call("GET", "/v1/webhooks?cursor=", "").Problem(400, "invalid_request", "cursor")

		h.Call("POST", "/v1/webhooks/"+id+"/test", "").Want(202)
		h.Call("POST", "/v1/webhooks/"+id+"/test", "").Want(202)
		d := h.Call("GET", "/v1/webhooks/"+id+"/deliveries", `{"limit":1}`).Want(200)
		if l := d.List("deliveries"); len(l) != 1 || d.At("paging", "has_more") != true {
			t.Fatalf("deliveries, the body's limit: %s", d.Body)
		}
		h.Call("GET", "/v1/webhooks/"+id+"/deliveries", `{"cursr":"x"}`).Problem(400, "invalid_request", "cursr")
		h.Call("GET", "/v1/webhooks/"+id+"/deliveries", `{"limit":1}`, "Content-Type", "text/plain").Problem(415, "unsupported_media_type")
		h.Call("GET", "/v1/webhooks/"+id+"/deliveries?cursor=", "").Problem(400, "invalid_request", "cursor")
	})
}

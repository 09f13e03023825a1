package webhooks_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"records/internal/servertest"
)

// Webhooks are a team's resource: made, read, listed, changed and deleted
// as the others, with bad input a 400 naming the member.
func TestWebhookRoutes(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/webhooks", `{"events":["*"]}`).Problem(400, "invalid_request", "url")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x"}`).Problem(400, "invalid_request", "events")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":[]}`).Problem(400, "invalid_request", "events")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["returns.made"]}`).Problem(400, "invalid_request", "events[0]")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*","*"]}`).Problem(400, "invalid_request", "events[1]")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":"*"}`).Problem(400, "invalid_request", "events")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*"],"secret":"mine"}`).Problem(400, "invalid_request", "secret")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*"],"enabled":false}`).Problem(400, "invalid_request", "enabled")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*"],"description":"a\u0000b"}`).Problem(400, "invalid_request", "description")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*"],"url":"https://93.184.215.14/y"}`).Problem(400, "invalid_request", "url")
		h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/x","events":["*"]`).Problem(400, "invalid_json")
		for _, u := range []string{"ftp://example.com/x", "not a url", "/relative", "http://user:pw@93.184.215.14/",
			"http://127.0.0.1:8080/x", "http://localhost/x", "http://10.1.2.3/x", "http://192.168.0.1/x", "http://169.254.169.254/latest/meta-data",
			"http://[::1]/x", "http://[fd00:ec2::254]/x", "http://0.0.0.0/x", "http://100.64.0.1/x", "http://168.63.129.16/x", "http://[fec0::1]/x",
			// A zone, ports outside 1–65535, and IPv6 forms of IPv4 addresses
			// (6to4 and NAT64 of 127.0.0.1, IPv4-compatible, Teredo).
			"http://[fe80::1%25eth0]/x", "http://93.184.215.14:0/x", "http://93.184.215.14:99999/x",
			"http://[2002:7f00:1::]/x", "http://[64:ff9b::7f00:1]/x", "http://[::ffff:0:7f00:1]/x", "http://[64:ff9b:1::a00:1]/x", "http://[::7f00:1]/x",
			"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x"} {
			h.Call("POST", "/v1/webhooks", `{"url":"`+u+`","events":["*"]}`).Problem(400, "invalid_request", "url")
		}
		wh := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/hook","events":["returns.created","returns.deleted"]}`).Want(201).Obj()
		id := wh["id"].(string)
		got := h.Call("GET", "/v1/webhooks/"+id, "").Want(200).Obj()
		if _, shown := got["secret"]; shown || got["url"] != "https://93.184.215.14/hook" {
			t.Fatalf("read: %v", got)
		}
		if l := h.Call("GET", "/v1/webhooks", "").Want(200).List("webhooks"); len(l) != 1 {
			t.Fatalf("list: %v", l)
		}
		up := h.Call("PATCH", "/v1/webhooks/"+id, `{"events":["*"],"description":"all","enabled":false}`).Want(200).Obj()
		if up["enabled"] != false || up["description"] != "all" || up["version"] != json.Number("2") {
			t.Fatalf("patched: %v", up)
		}
		h.Call("PATCH", "/v1/webhooks/"+id, `{"url":"http://127.0.0.1/"}`).Problem(400, "invalid_request", "url")
		h.Call("PATCH", "/v1/webhooks/"+id, `{"color":"red"}`).Problem(400, "invalid_request", "color")
		other := h.NewToken("other", "write", "other-team")
		h.CallAs(other, "GET", "/v1/webhooks/"+id, "").Problem(404, "not_found")
		h.CallAs(other, "DELETE", "/v1/webhooks/"+id, "").Problem(404, "not_found")
		if l := h.CallAs(other, "GET", "/v1/webhooks", "").Want(200).List("webhooks"); len(l) != 0 {
			t.Fatalf("another team's list: %v", l)
		}
		reader := h.NewToken("reader", "read", "")
		h.CallAs(reader, "POST", "/v1/webhooks", `{"url":"https://93.184.215.14/","events":["*"]}`).Problem(403, "forbidden")
		// Keyed, a create is made once.
		k := []string{"Idempotency-Key", "wh-1"}
		a := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/k","events":["*"]}`, k...).Want(201)
		b := h.Call("POST", "/v1/webhooks", `{"url":"https://93.184.215.14/k","events":["*"]}`, k...).Want(201)
		if a.Obj()["id"] != b.Obj()["id"] || b.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a keyed create replayed: %s / %s", a.Body, b.Body)
		}
		// Versions work as a record's: an ETag, 304, and If-Match checked
		// in the write's own statement.
		read := h.Call("GET", "/v1/webhooks/"+id, "").Want(200)
		tag := read.Header.Get("ETag")
		if tag != `"`+fmt.Sprint(read.Obj()["version"])+`"` {
			t.Fatalf("ETag %q of %s", tag, read.Body)
		}
		if r := h.Call("GET", "/v1/webhooks/"+id, "", "If-None-Match", tag); r.Status != 304 || len(r.Body) != 0 {
			t.Fatalf("If-None-Match of the current version: %d %s", r.Status, r.Body)
		}
		h.Call("PATCH", "/v1/webhooks/"+id, `{"description":"stale"}`, "If-Match", `"999"`).Problem(412, "precondition_failed")
		h.Call("DELETE", "/v1/webhooks/"+id, "", "If-Match", `"999"`).Problem(412, "precondition_failed")
		h.Call("PATCH", "/v1/webhooks/"+id, `{"description":"x"}`, "If-Match", `"1" "2"`).Problem(400, "invalid_request", "If-Match")
		h.Call("DELETE", "/v1/webhooks/"+id, "", "If-Match", `W/*`).Problem(400, "invalid_request", "If-Match")
		patched := h.Call("PATCH", "/v1/webhooks/"+id, `{"description":"current"}`, "If-Match", tag).Want(200)
		if next := patched.Header.Get("ETag"); next == tag || next != `"`+fmt.Sprint(patched.Obj()["version"])+`"` {
			t.Fatalf("ETag after a PATCH: %q (was %q) of %s", next, tag, patched.Body)
		}
		h.Call("DELETE", "/v1/webhooks/"+id, "", "If-Match", tag).Problem(412, "precondition_failed")
		h.Call("GET", "/v1/webhooks/"+id, "").Want(200)
		h.Call("DELETE", "/v1/webhooks/"+id, "", "If-Match", patched.Header.Get("ETag")).Want(200)
		h.Call("GET", "/v1/webhooks/"+id, "").Problem(404, "not_found")
		h.Call("GET", "/v1/webhooks/"+id+"/deliveries", "").Problem(404, "not_found")
		h.Call("DELETE", "/v1/webhooks/"+id, "", "If-Match", "*").Problem(412, "precondition_failed")
	})
}

package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/server"
	"records/internal/servertest"
)

// receiver is a webhook endpoint that records what it is sent and answers
// as fail says.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []delivered
	fail func(id string, attempt int) int // the status to answer; 0 is 204
	seen map[string]int
}

type delivered struct {
	id, timestamp, signature string
	body                     []byte
	at                       time.Time
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{seen: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		d := delivered{id: req.Header.Get("webhook-id"), timestamp: req.Header.Get("webhook-timestamp"),
			signature: req.Header.Get("webhook-signature"), body: body, at: time.Now()}
		r.mu.Lock()
		r.seen[d.id]++
		attempt := r.seen[d.id]
		r.got = append(r.got, d)
		fail := r.fail
		r.mu.Unlock()
		status := http.StatusNoContent
		if fail != nil {
			if s := fail(d.id, attempt); s != 0 {
				status = s
			}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

// wait waits until ok holds of what was received.
func (r *receiver) wait(t *testing.T, what string, ok func(got []delivered) bool) []delivered {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r.mu.Lock()
		got := append([]delivered(nil), r.got...)
		r.mu.Unlock()
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: received %d deliveries", what, len(got))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// verify checks a delivery's signature as a receiver following Standard
// Webhooks does, with the secret the webhook was created with.
func verify(t *testing.T, secret string, d delivered) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(d.id + "." + d.timestamp + "." + string(d.body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(d.signature), []byte(want)) {
		t.Fatalf("delivery %s: signature %q, want %q", d.id, d.signature, want)
	}
}

func webhookConfig() server.Config {
	cfg := servertest.Config()
	cfg.Webhooks.AllowPrivate = true
	cfg.Webhooks.Poll = 20 * time.Millisecond
	cfg.Webhooks.Schedule = []time.Duration{300 * time.Millisecond, 300 * time.Millisecond}
	return cfg
}

// eachWithWebhooks runs fn on a fresh server delivering webhooks, per database.
func eachWithWebhooks(t *testing.T, cfg server.Config, fn func(t *testing.T, h *servertest.Harness)) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := servertest.New(t, d, cfg)
			h.Srv.Start()
			t.Cleanup(func() { h.Srv.Close() })
			fn(t, h)
		})
	}
}

// Deliveries carry the event as the log answers it, signed with the
// webhook's secret, for the types the webhook asked for.
func TestWebhooksDeliverSignedEvents(t *testing.T) {
	eachWithWebhooks(t, webhookConfig(), func(t *testing.T, h *servertest.Harness) {
		rcv := newReceiver(t)
		wh := h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`/hook","events":["customers.created"],"description":"crm"}`).Want(201).Obj()
		secret := wh["secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || wh["enabled"] != true {
			t.Fatalf("created: %v", wh)
		}
		for i := range 5 {
			h.Call("POST", "/v1/customers", fmt.Sprintf(`{"id":"c%d"}`, i)).Want(201)
		}
		h.Call("POST", "/v1/suppliers", `{"id":"s1"}`).Want(201)
		h.Call("PATCH", "/v1/customers/c1", `{"email":"x@example.com"}`).Want(200)
		got := rcv.wait(t, "five creates", func(got []delivered) bool { return len(got) >= 5 })
		time.Sleep(200 * time.Millisecond)
		got = rcv.wait(t, "five creates", func(got []delivered) bool { return true })
		if len(got) != 5 {
			t.Fatalf("want 5 deliveries (customers.created only), got %d", len(got))
		}
		logged := map[string]any{}
		for _, e := range h.Call("GET", "/v1/events", "").Want(200).List("events") {
			logged[e.(map[string]any)["id"].(string)] = e
		}
		for _, d := range got {
			verify(t, secret, d)
			var body map[string]any
			dec := json.NewDecoder(strings.NewReader(string(d.body)))
			dec.UseNumber()
			if err := dec.Decode(&body); err != nil {
				t.Fatal(err)
			}
			if body["id"] != d.id || body["type"] != "customers.created" || !reflect.DeepEqual(body, logged[d.id]) {
				t.Fatalf("delivery %s: %s\nthe log has %v", d.id, d.body, logged[d.id])
			}
		}
		// Every attempt is in the webhook's deliveries, newest first.
		dl := h.Call("GET", "/v1/webhooks/"+wh["id"].(string)+"/deliveries", "").Want(200).List("deliveries")
		if len(dl) != 5 || servertest.Dig(t, dl[0], "status") != "delivered" || servertest.Dig(t, dl[0], "status_code") != json.Number("204") {
			t.Fatalf("deliveries: %v", dl)
		}
		// A test event.
		h.Call("POST", "/v1/webhooks/"+wh["id"].(string)+"/test", "").Want(202)
		ping := rcv.wait(t, "a test event", func(got []delivered) bool { return len(got) == 6 })[5]
		verify(t, secret, ping)
		if !strings.Contains(string(ping.body), `"type":"webhook.test"`) {
			t.Fatalf("test event: %s", ping.body)
		}
	})
}

// An event whose record cannot be written out (an image no reader parses,
// as a date of 1 BC once was on PostgreSQL) is answered with the record's
// id only, as a deletion's is, and logged as an error: the event log's
// page, the stream and webhooks go on past it, for its team and every
// other, rather than failing or stopping there forever.
func TestAnEventThatCannotBeWrittenOutHoldsNothingBack(t *testing.T) {
	eachWithWebhooks(t, webhookConfig(), func(t *testing.T, h *servertest.Harness) {
		rcv := newReceiver(t)
		h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`/hook","events":["*"]}`).Want(201)
		stream, hangUp := servertest.OpenStream(t, servertest.Serve(t, h.Srv).URL, h.Token)
		defer hangUp()
		txid := "0"
		if h.DB.Postgres() {
			txid = "txid_current()"
		}
		if _, err := h.DB.Exec(context.Background(), `INSERT INTO events (txid, team_id, type, record_id, image, occurred_at)
			VALUES (`+txid+`, 1, 'users.created', 'bad', '{"id":"bad","version":1,"birthday":"0001-01-01 BC"}', ?)`, time.Now().UnixMicro()); err != nil {
			t.Fatal(err)
		}
		h.Call("POST", "/v1/customers", `{"id":"after"}`).Want(201)
		got := rcv.wait(t, "the events", func(got []delivered) bool { return len(got) >= 2 })
		both := string(got[0].body) + string(got[1].body) // delivered concurrently: in either order
		if len(got) != 2 || !strings.Contains(both, `"object":{"id":"bad"}`) || !strings.Contains(both, `"object":{"id":"after",`) {
			t.Fatalf("want the bad event with its record's id only, and the create after it; got %d: %s", len(got), both)
		}
		for _, want := range []string{`"object":{"id":"bad"}`, `"object":{"id":"after",`} {
			if e := servertest.NextEvent(t, stream); !strings.Contains(e.Data, want) {
				t.Fatalf("the stream: %s, want %s", e.Data, want)
			}
		}
		page := h.Call("GET", "/v1/events", "").Want(200)
		if l := page.List("events"); len(l) != 2 || !strings.Contains(string(page.Body), `"object":{"id":"bad"}`) {
			t.Fatalf("the log's page: %s", page.Body)
		}
		if !strings.Contains(h.Logs.String(), "cannot be written out") {
			t.Fatalf("the event is not logged:\n%s", h.Logs)
		}
	})
}

// A failed attempt is retried after the schedule's wait; after the last,
// the delivery is failed.
func TestWebhookRetriesFollowTheSchedule(t *testing.T) {
	eachWithWebhooks(t, webhookConfig(), func(t *testing.T, h *servertest.Harness) {
		rcv := newReceiver(t)
		rcv.fail = func(id string, attempt int) int {
			if strings.HasPrefix(id, "evt_") && attempt < 3 && id == firstEvent(rcv) {
				return 500
			}
			if id != firstEvent(rcv) {
				return 503 // every attempt at the second event fails
			}
			return 0
		}
		wh := h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["*"]}`).Want(201).Obj()
		h.Call("POST", "/v1/customers", `{"id":"r1"}`).Want(201)
		got := rcv.wait(t, "three attempts", func(got []delivered) bool { return len(got) >= 3 })
		for i := 1; i < 3; i++ {
			if gap := got[i].at.Sub(got[i-1].at); gap < 270*time.Millisecond {
				t.Fatalf("attempt %d came %v after the one before; the schedule says 300ms (±10%%)", i+1, gap)
			}
		}
		h.Call("POST", "/v1/customers", `{"id":"r2"}`).Want(201)
		rcv.wait(t, "three attempts at the second", func(got []delivered) bool { return len(got) >= 6 })
		time.Sleep(500 * time.Millisecond)
		dl := h.Call("GET", "/v1/webhooks/"+wh["id"].(string)+"/deliveries", "").Want(200).List("deliveries")
		var summary []string
		for _, d := range dl {
			summary = append(summary, fmt.Sprintf("%v#%v:%v", servertest.Dig(t, d, "event_id"), servertest.Dig(t, d, "attempt"), servertest.Dig(t, d, "status")))
		}
		evs := h.Call("GET", "/v1/events", "").Want(200).List("events")
		first, second := servertest.Dig(t, evs[0], "id"), servertest.Dig(t, evs[1], "id")
		want := []string{second.(string) + "#3:failed", second.(string) + "#2:failed", second.(string) + "#1:failed",
			first.(string) + "#3:delivered", first.(string) + "#2:failed", first.(string) + "#1:failed"}
		if !reflect.DeepEqual(summary, want) {
			t.Fatalf("deliveries %v, want %v", summary, want)
		}
		if n := len(rcv.got); n != 6 {
			t.Fatalf("%d attempts made, want 6", n)
		}
	})
}

func firstEvent(r *receiver) string {
	if len(r.got) == 0 {
		return ""
	}
	return r.got[0].id
}

// A webhook failing every attempt for DisableAfter is disabled; enabling it
// again resumes delivery.
func TestFailingWebhooksAreDisabled(t *testing.T) {
	cfg := webhookConfig()
	cfg.Webhooks.Schedule = []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}
	cfg.Webhooks.DisableAfter = 250 * time.Millisecond
	eachWithWebhooks(t, cfg, func(t *testing.T, h *servertest.Harness) {
		rcv := newReceiver(t)
		rcv.fail = func(string, int) int { return 500 }
		id := h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["*"]}`).Want(201).Obj()["id"].(string)
		h.Call("POST", "/v1/customers", `{}`).Want(201)
		deadline := time.Now().Add(10 * time.Second)
		for h.Call("GET", "/v1/webhooks/"+id, "").Want(200).Obj()["enabled"] != false {
			if time.Now().After(deadline) {
				t.Fatal("the failing webhook was not disabled")
			}
			time.Sleep(50 * time.Millisecond)
		}
		rcv.mu.Lock()
		n := len(rcv.got)
		rcv.fail = nil
		rcv.mu.Unlock()
		h.Call("POST", "/v1/customers", `{}`).Want(201)
		time.Sleep(300 * time.Millisecond)
		if rcv.wait(t, "", func([]delivered) bool { return true }); len(rcv.got) != n {
			t.Fatalf("a disabled webhook was delivered to")
		}
		h.Call("PATCH", "/v1/webhooks/"+id, `{"enabled":true}`).Want(200)
		h.Call("POST", "/v1/customers", `{"id":"after"}`).Want(201)
		rcv.wait(t, "after enabling", func(got []delivered) bool {
			return len(got) > n && strings.Contains(string(got[len(got)-1].body), `"id":"after"`)
		})
	})
}

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
			"http://[::1]/x", "http://[fd00:ec2::254]/x", "http://0.0.0.0/x", "http://100.64.0.1/x",
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

// Two instances on one database deliver each event once.
func TestTwoInstancesDeliverEachEventOnce(t *testing.T) {
	eachWithWebhooks(t, webhookConfig(), func(t *testing.T, h *servertest.Harness) {
		second := servertest.SecondServer(t, h, webhookConfig())
		second.Start()
		t.Cleanup(func() { second.Close() })
		rcv := newReceiver(t)
		h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["*"]}`).Want(201)
		const n = 100
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n / 4 {
					h.Call("POST", "/v1/customers", fmt.Sprintf(`{"id":"two-%d-%d"}`, w, i))
				}
			}()
		}
		wg.Wait()
		rcv.wait(t, "every event", func(got []delivered) bool { return len(got) >= n })
		time.Sleep(300 * time.Millisecond)
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if len(rcv.got) != n {
			t.Fatalf("%d deliveries of %d events", len(rcv.got), n)
		}
		for id, k := range rcv.seen {
			if k != 1 {
				t.Fatalf("event %s delivered %d times", id, k)
			}
		}
	})
}

// An attempt in flight when its instance stops — killed, or shut down
// before the endpoint answered — is listed as an attempt of its own
// (failed, its outcome unknown), and the attempt made again after its
// lease lapses is another: the deliveries list shows every request the
// endpoint may have seen. (The attempt made again took the same row, so
// after crashes the list showed fewer attempts than the endpoint received.)
func TestInterruptedAttemptsAreListed(t *testing.T) {
	cfg := webhookConfig()
	cfg.Webhooks.Timeout = time.Second // leases of 4 s
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := servertest.New(t, d, cfg)
			dying := servertest.SecondServer(t, h, cfg)
			dying.Start()
			rcv := newReceiver(t)
			reached, hold := make(chan struct{}, 1), make(chan struct{})
			defer close(hold)
			rcv.mu.Lock()
			rcv.fail = func(_ string, attempt int) int {
				if attempt == 1 { // answered only after the instance stopped
					reached <- struct{}{}
					<-hold
				}
				return 0
			}
			rcv.mu.Unlock()
			hook := h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["customers.created"]}`).Want(201).Obj()["id"].(string)
			h.Call("POST", "/v1/customers", `{"id":"c1"}`).Want(201)
			select {
			case <-reached:
			case <-time.After(15 * time.Second):
				t.Fatal("the first attempt never reached the endpoint")
			}
			if err := dying.Close(); err != nil { // mid-attempt
				t.Fatal(err)
			}
			h.Srv.Start()
			t.Cleanup(func() { h.Srv.Close() })
			rcv.wait(t, "the attempt made again", func(got []delivered) bool { return len(got) >= 2 })
			var list []any
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				list = h.Call("GET", "/v1/webhooks/"+hook+"/deliveries", "").Want(200).List("deliveries")
				if len(list) > 0 && list[0].(map[string]any)["status"] == "delivered" || time.Now().After(deadline) {
					break
				}
			}
			rcv.mu.Lock()
			received := len(rcv.got)
			rcv.mu.Unlock()
			if len(list) != received || len(list) != 2 {
				t.Fatalf("the endpoint received %d requests, the list shows %d attempts: %v", received, len(list), list)
			}
			again, first := list[0].(map[string]any), list[1].(map[string]any)
			if again["status"] != "delivered" || again["attempt"] != json.Number("2") {
				t.Errorf("the attempt made again: %v", again)
			}
			if first["status"] != "failed" || first["attempt"] != json.Number("1") || first["delivered_at"] != nil ||
				!strings.Contains(fmt.Sprint(first["error"]), "no outcome was recorded") {
				t.Errorf("the interrupted attempt: %v", first)
			}
		})
	}
}

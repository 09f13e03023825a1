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
	"records/internal/migrate"
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

// An idle worker takes no write lock: with no event to dispatch and no
// attempt due, its polls only read — with no webhook, and with a webhook
// whose events were delivered. On SQLite each write of the process counts
// (db.DB.Writes), and writes every poll kept the checkpointer from ever
// seeing the database quiet, so its FTS5 merger never finished a merge.
func TestAnIdleWorkerDoesNotWrite(t *testing.T) {
	h := servertest.New(t, migrate.SQLite, webhookConfig())
	h.Srv.Start()
	t.Cleanup(func() { h.Srv.Close() })
	idle := func(when string) {
		t.Helper()
		time.Sleep(200 * time.Millisecond) // its first polls
		before := h.DB.Writes()
		time.Sleep(300 * time.Millisecond) // some 15 polls of 20 ms
		if after := h.DB.Writes(); after != before {
			t.Fatalf("%s, an idle worker wrote %d times in 15 polls", when, after-before)
		}
	}
	idle("with no webhook")
	rcv := newReceiver(t)
	h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`/hook","events":["customers.created"]}`).Want(201)
	h.Call("POST", "/v1/customers", `{"id":"c1"}`).Want(201)
	rcv.wait(t, "the create", func(got []delivered) bool { return len(got) == 1 })
	idle("once its event was delivered")
}

// While a transaction of the service's database holds the log back
// (PostgreSQL's horizon), events past it are not dispatched yet, and the
// worker begins no transaction for them at its polls; once it ends, they
// are delivered. PostgreSQL only: SQLite's writers commit in turn, so its
// log has no horizon to hold back (its idle worker: the test above).
func TestAHeldBackLogCostsTheWorkerNoTransaction(t *testing.T) {
	h := servertest.New(t, migrate.Postgres, webhookConfig())
	h.Srv.Start()
	t.Cleanup(func() { h.Srv.Close() })
	rcv := newReceiver(t)
	h.Call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`/hook","events":["customers.created"]}`).Want(201)
	h.Call("POST", "/v1/customers", `{"id":"c1"}`).Want(201)
	rcv.wait(t, "the first create", func(got []delivered) bool { return len(got) == 1 })

	ctx := context.Background()
	hold, err := h.DB.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.ExecContext(ctx, `SELECT txid_current()`); err != nil { // an id: it holds the log back
		t.Fatal(err)
	}
	h.Call("POST", "/v1/customers", `{"id":"c2"}`).Want(201)
	time.Sleep(200 * time.Millisecond) // its first polls
	before := h.DB.Transactions()
	time.Sleep(300 * time.Millisecond) // some 15 polls of 20 ms
	if n := h.DB.Transactions() - before; n != 0 {
		t.Errorf("the worker began %d transactions in 15 polls of a log held back", n)
	}
	if got := len(rcv.wait(t, "nothing past the horizon", func([]delivered) bool { return true })); got != 1 {
		t.Errorf("%d deliveries while the log was held back, want 1", got)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	rcv.wait(t, "the second create, once the log was let go", func(got []delivered) bool { return len(got) == 2 })
}

package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/natstest"
	"records/internal/server"
)

// replicatedPair starts a primary and a streaming standby of it, each a
// PostgreSQL of its own in a temporary folder, with a database named name
// on both. Synchronous replication, when sync, makes every commit wait for
// the standby to hold it: what the primary acknowledged survives its crash.
func replicatedPair(t *testing.T, name string, delay time.Duration, sync bool) (primary, standby *dbtest.Cluster) {
	t.Helper()
	primary = dbtest.NewCluster(t)
	primaryURL := primary.URL(name)
	standby = primary.Standby(delay)
	if !sync {
		return primary, standby
	}
	admin, err := sql.Open("postgres", primaryURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`ALTER SYSTEM SET synchronous_standby_names = '*'`); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the standby to replicate synchronously", func() bool {
		var n int
		err := admin.QueryRow(`SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'`).Scan(&n)
		return err == nil && n == 1
	})
	return primary, standby
}

// openMigrated opens the database at url, migrated, closed when t ends.
func openMigrated(t *testing.T, url string) *db.DB {
	t.Helper()
	database, err := db.Open(context.Background(), db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { database.Close() })
	if _, err := database.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return database
}

// waitFor polls ok until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A primary killed under the load of 16 writers, and its synchronous
// standby promoted: the service, given both hosts in one URL, goes on.
// Each writer creates a customer and then changes it, each with its own
// Idempotency-Key, resending a write answered 503 (or 409 while its key is
// held) until it is acknowledged. Afterwards: no acknowledged write is
// lost, none was made twice (one customer per key, each changed once),
// every change has exactly one event, /readyz answered 503 while no
// primary took writes, and webhooks deliver the events written after the
// promotion (their worker resumed), and the NATS publisher, whose lock
// died with the primary, resumes on the new one: the stream holds every
// event of the log once, in order. The first acknowledged write after the
// promotion is reported.
func TestFailoverUnderWriteLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL clusters of its own")
	}
	start := time.Now()
	primary, standby := replicatedPair(t, "failover", 0, true)
	t.Logf("clusters ready in %v", time.Since(start).Round(time.Millisecond))
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/failover?sslmode=disable&connect_timeout=2",
		primary.Port(), standby.Port())
	database := openMigrated(t, url)
	broker := natstest.Start(t)
	cfg := publishing(broker)
	cfg.RequestTimeout = 5 * time.Second
	cfg.Webhooks.AllowPrivate = true
	cfg.Webhooks.Schedule = []time.Duration{100 * time.Millisecond}
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Close()
	_, token, err := auth.NewStore(database, 0).Create(context.Background(), "failover", auth.Write, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	receiver, delivered := creationReceiver(t)
	if code, _, body := send(t, ts, token, "POST", "/v1/webhooks", `{"url":"`+receiver.URL+`","events":["*"]}`); code != 201 {
		t.Fatalf("making a webhook: %d %s", code, body)
	}

	load := startFailoverLoad(t, ts, token)
	time.Sleep(1500 * time.Millisecond)
	primary.Stop("immediate")
	killed := time.Now()
	time.Sleep(700 * time.Millisecond)
	if s := readyz(t, ts); s != 503 {
		t.Errorf("/readyz answered %d with the primary dead and the standby not yet promoted, want 503", s)
	}
	load.promoted.Store(time.Now().UnixNano())
	standby.Promote()
	promotedBy := time.Now()
	waitFor(t, 30*time.Second, "a write acknowledged after the promotion", func() bool { return load.firstOK.Load() != 0 })
	if s := readyz(t, ts); s != 200 {
		t.Errorf("/readyz answered %d once the standby was promoted, want 200", s)
	}
	time.Sleep(1500 * time.Millisecond)
	load.stop(t)
	t.Logf("the primary killed; its standby told to promote %v later, promoted %v after that; the first write acknowledged %v after the promotion began",
		time.Unix(0, load.promoted.Load()).Sub(killed).Round(time.Millisecond),
		promotedBy.Sub(time.Unix(0, load.promoted.Load())).Round(time.Millisecond),
		time.Unix(0, load.firstOK.Load()).Sub(time.Unix(0, load.promoted.Load())).Round(time.Millisecond))

	t.Logf("load ended at %v", time.Since(start).Round(time.Millisecond))
	load.check(t, standby.URL("failover"))

	t.Logf("checked at %v", time.Since(start).Round(time.Millisecond))
	// The webhook worker resumed: a creation after the failover reaches
	// the receiver.
	if code, _, body := send(t, ts, token, "POST", "/v1/customers", `{"email":"after-failover"}`); code != 201 {
		t.Fatalf("a create after the failover: %d %s", code, body)
	}
	waitFor(t, 30*time.Second, "the webhook delivery of a creation after the failover", func() bool {
		_, ok := delivered.Load("after-failover")
		return ok
	})

	// The publisher resumed: the stream holds the log.
	checkLogInStream(t, ts, token, broker.URL(), cfg.NATS.Stream)
}

// creationReceiver is a webhook receiver that notes, in delivered, the
// email of every customer whose creation it is sent.
func creationReceiver(t *testing.T) (receiver *httptest.Server, delivered *sync.Map) {
	delivered = &sync.Map{}
	receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e struct {
			Type string
			Data struct{ Object struct{ Email string } }
		}
		json.NewDecoder(r.Body).Decode(&e)
		if e.Type == "customers.created" {
			delivered.Store(e.Data.Object.Email, true)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	return receiver, delivered
}

// failoverLoad is 16 writers, each creating a customer and then changing
// it, each write with its own Idempotency-Key, resent while it is answered
// 503 (or 409 while its key is held) until it is acknowledged.
type failoverLoad struct {
	ts    *httptest.Server
	token string

	mu       sync.Mutex
	statuses map[int]int
	created  map[string]string // key → the id its create was answered
	patched  map[string]bool   // ids whose change was acknowledged
	firstOK  atomic.Int64      // unix nanos of the first 2xx after the promotion
	promoted atomic.Int64      // unix nanos of the promotion

	stopping chan struct{} // no new records
	abandon  chan struct{} // give up on writes in flight
	wg       sync.WaitGroup
}

func startFailoverLoad(t *testing.T, ts *httptest.Server, token string) *failoverLoad {
	l := &failoverLoad{ts: ts, token: token, statuses: map[int]int{}, created: map[string]string{}, patched: map[string]bool{},
		stopping: make(chan struct{}), abandon: make(chan struct{})}
	for w := range 16 {
		l.wg.Add(1)
		go l.writer(t, w)
	}
	return l
}

// writer creates and changes customers until the load stops.
func (l *failoverLoad) writer(t *testing.T, w int) {
	defer l.wg.Done()
	for i := 0; ; i++ {
		select {
		case <-l.stopping:
			return
		default:
		}
		key := fmt.Sprintf("w%d-%d", w, i)
		answer := l.write(t, "POST", "/v1/customers", "create-"+key, `{"email":"`+key+`"}`)
		var rec struct{ ID string }
		if answer == "" || json.Unmarshal([]byte(answer), &rec) != nil || rec.ID == "" {
			return
		}
		l.mu.Lock()
		l.created[key] = rec.ID
		l.mu.Unlock()
		if l.write(t, "PATCH", "/v1/customers/"+rec.ID, "patch-"+key, `{"firstName":"changed"}`) == "" {
			return
		}
		l.mu.Lock()
		l.patched[rec.ID] = true
		l.mu.Unlock()
	}
}

// write sends one keyed write until it is acknowledged, and returns its
// answer's body; "" if the test gives up on it first.
func (l *failoverLoad) write(t *testing.T, method, path, key, body string) string {
	for {
		code, _, answer := send(t, l.ts, l.token, method, path, body, "Idempotency-Key", key)
		l.mu.Lock()
		l.statuses[code]++
		l.mu.Unlock()
		switch {
		case code == 200 || code == 201:
			if p := l.promoted.Load(); p != 0 {
				l.firstOK.CompareAndSwap(0, time.Now().UnixNano())
			}
			return answer
		case code == 503, code == 409 && strings.Contains(answer, "idempotency_key_in_use"):
		default:
			t.Errorf("%s %s: %d %s", method, path, code, answer)
			return ""
		}
		select {
		case <-l.abandon:
			return ""
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop ends the load: no new records, and the writes in flight given 30 s
// to be acknowledged.
func (l *failoverLoad) stop(t *testing.T) {
	close(l.stopping)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		close(l.abandon)
		l.wg.Wait()
		t.Error("writes in flight were not acknowledged within 30 s of the load's end")
	}
}

// check compares what the database at url holds with what the load had
// acknowledged: no create lost or made twice, no change made twice, and
// one event for each change.
func (l *failoverLoad) check(t *testing.T, url string) {
	byEmail, versions, events := customersHeld(t, url)
	l.mu.Lock()
	defer l.mu.Unlock()
	lost, twice, changedTwice, badEvents := 0, 0, 0, 0
	for key, id := range l.created {
		switch ids := byEmail[key]; {
		case len(ids) > 1:
			twice++
			t.Errorf("the create with key %s was made %d times: %v", key, len(ids), ids)
		case len(ids) == 0 || ids[0] != id:
			lost++
			t.Errorf("the create with key %s was acknowledged as %s, and the new primary holds %v", key, id, ids)
		}
		if l.patched[id] && versions[id] != 2 {
			changedTwice++
			t.Errorf("customer %s, changed once, is at version %d, want 2", id, versions[id])
		}
	}
	for email, ids := range byEmail {
		if _, acked := l.created[email]; len(ids) > 1 && !acked {
			twice++
			t.Errorf("a create never acknowledged was made %d times: %s %v", len(ids), email, ids)
		}
		for _, id := range ids {
			want := map[string]int{"customers.created": 1}
			if versions[id] == 2 {
				want["customers.updated"] = 1
			}
			if got := events[id]; fmt.Sprint(got) != fmt.Sprint(want) {
				badEvents++
				t.Errorf("customer %s at version %d has events %v, want %v", id, versions[id], got, want)
			}
		}
	}
	t.Logf("answers %v; %d creates and %d changes acknowledged; on the new primary: %d lost, %d made twice, %d changed twice, %d with events other than its changes",
		l.statuses, len(l.created), len(l.patched), lost, twice, changedTwice, badEvents)

}

// customersHeld reads the customers the database at url holds: ids by
// email, versions by id, and the number of events of each type by id.
func customersHeld(t *testing.T, url string) (byEmail map[string][]string, versions map[string]int, events map[string]map[string]int) {
	check, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	byEmail, versions = map[string][]string{}, map[string]int{}
	rows, err := check.Query(`SELECT "id", "email", "version" FROM "customers"`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, email string
		var version int
		if err := rows.Scan(&id, &email, &version); err != nil {
			t.Fatal(err)
		}
		byEmail[email] = append(byEmail[email], id)
		versions[id] = version
	}
	rows.Close()
	events = map[string]map[string]int{} // record id → type → events
	rows, err = check.Query(`SELECT "record_id", "type", count(*) FROM "events" WHERE "type" LIKE 'customers.%' GROUP BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, typ string
		var n int
		if err := rows.Scan(&id, &typ, &n); err != nil {
			t.Fatal(err)
		}
		if events[id] == nil {
			events[id] = map[string]int{}
		}
		events[id][typ] = n
	}
	rows.Close()
	return byEmail, versions, events
}

// checkLogInStream waits for the NATS stream to hold as many events as
// the log, then checks that it holds every one once, in order.
func checkLogInStream(t *testing.T, ts *httptest.Server, token, brokerURL, stream string) {
	var ids []string
	var bodies [][]byte
	var msgs []natstest.Message
	waitFor(t, 60*time.Second, "every event in the stream", func() bool {
		ids, bodies = readLog(t, func(path string) (int, []byte) {
			code, _, body := send(t, ts, token, "GET", path, "")
			return code, []byte(body)
		})
		msgs = natstest.Messages(t, brokerURL, stream)
		return len(msgs) == len(bodies)
	})
	checkStream(t, msgs, map[int][][]byte{1: bodies}, map[int][]string{1: ids})
	t.Logf("%d events in the log, %d in the stream", len(bodies), len(msgs))
}

// readyz is the status /readyz answers.
func readyz(t *testing.T, ts *httptest.Server) int {
	t.Helper()
	resp, err := http.Get(ts.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

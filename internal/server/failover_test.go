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

	var delivered sync.Map // emails of the customers whose creation was delivered
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	defer receiver.Close()
	if code, _, body := send(t, ts, token, "POST", "/v1/webhooks", `{"url":"`+receiver.URL+`","events":["*"]}`); code != 201 {
		t.Fatalf("making a webhook: %d %s", code, body)
	}

	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		created  = map[string]string{} // key → the id its create was answered
		patched  = map[string]bool{}   // ids whose change was acknowledged
		firstOK  atomic.Int64          // unix nanos of the first 2xx after the promotion
		promoted atomic.Int64          // unix nanos of the promotion
	)
	// write sends one keyed write until it is acknowledged, and returns
	// its answer's body; "" if the test ends first.
	write := func(method, path, key, body string, stop <-chan struct{}) string {
		for {
			code, _, answer := send(t, ts, token, method, path, body, "Idempotency-Key", key)
			mu.Lock()
			statuses[code]++
			mu.Unlock()
			switch {
			case code == 200 || code == 201:
				if p := promoted.Load(); p != 0 {
					firstOK.CompareAndSwap(0, time.Now().UnixNano())
				}
				return answer
			case code == 503, code == 409 && strings.Contains(answer, "idempotency_key_in_use"):
			default:
				t.Errorf("%s %s: %d %s", method, path, code, answer)
				return ""
			}
			select {
			case <-stop:
				return ""
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	stopping := make(chan struct{}) // no new records
	abandon := make(chan struct{})  // give up on writes in flight
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stopping:
					return
				default:
				}
				key := fmt.Sprintf("w%d-%d", w, i)
				answer := write("POST", "/v1/customers", "create-"+key, `{"email":"`+key+`"}`, abandon)
				var rec struct{ ID string }
				if answer == "" || json.Unmarshal([]byte(answer), &rec) != nil || rec.ID == "" {
					return
				}
				mu.Lock()
				created[key] = rec.ID
				mu.Unlock()
				if write("PATCH", "/v1/customers/"+rec.ID, "patch-"+key, `{"firstName":"changed"}`, abandon) == "" {
					return
				}
				mu.Lock()
				patched[rec.ID] = true
				mu.Unlock()
			}
		}()
	}
	ready := func() int {
		resp, err := http.Get(ts.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	time.Sleep(1500 * time.Millisecond)
	primary.Stop("immediate")
	killed := time.Now()
	time.Sleep(700 * time.Millisecond)
	if s := ready(); s != 503 {
		t.Errorf("/readyz answered %d with the primary dead and the standby not yet promoted, want 503", s)
	}
	promoted.Store(time.Now().UnixNano())
	standby.Promote()
	promotedBy := time.Now()
	waitFor(t, 30*time.Second, "a write acknowledged after the promotion", func() bool { return firstOK.Load() != 0 })
	if s := ready(); s != 200 {
		t.Errorf("/readyz answered %d once the standby was promoted, want 200", s)
	}
	time.Sleep(1500 * time.Millisecond)
	close(stopping)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		close(abandon)
		wg.Wait()
		t.Error("writes in flight were not acknowledged within 30 s of the load's end")
	}
	t.Logf("the primary killed; its standby told to promote %v later, promoted %v after that; the first write acknowledged %v after the promotion began",
		time.Unix(0, promoted.Load()).Sub(killed).Round(time.Millisecond),
		promotedBy.Sub(time.Unix(0, promoted.Load())).Round(time.Millisecond),
		time.Unix(0, firstOK.Load()).Sub(time.Unix(0, promoted.Load())).Round(time.Millisecond))

	t.Logf("load ended at %v", time.Since(start).Round(time.Millisecond))
	// What the new primary holds.
	check, err := sql.Open("postgres", standby.URL("failover"))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	byEmail := map[string][]string{}
	versions := map[string]int{}
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
	events := map[string]map[string]int{} // record id → type → events
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

	mu.Lock()
	defer mu.Unlock()
	lost, twice, changedTwice, badEvents := 0, 0, 0, 0
	for key, id := range created {
		switch ids := byEmail[key]; {
		case len(ids) > 1:
			twice++
			t.Errorf("the create with key %s was made %d times: %v", key, len(ids), ids)
		case len(ids) == 0 || ids[0] != id:
			lost++
			t.Errorf("the create with key %s was acknowledged as %s, and the new primary holds %v", key, id, ids)
		}
		if patched[id] && versions[id] != 2 {
			changedTwice++
			t.Errorf("customer %s, changed once, is at version %d, want 2", id, versions[id])
		}
	}
	for email, ids := range byEmail {
		if _, acked := created[email]; len(ids) > 1 && !acked {
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
		statuses, len(created), len(patched), lost, twice, changedTwice, badEvents)

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
	var ids []string
	var bodies [][]byte
	var msgs []natstest.Message
	waitFor(t, 60*time.Second, "every event in the stream", func() bool {
		ids, bodies = readLog(t, func(path string) (int, []byte) {
			code, _, body := send(t, ts, token, "GET", path, "")
			return code, []byte(body)
		})
		msgs = natstest.Messages(t, broker.URL(), cfg.NATS.Stream)
		return len(msgs) == len(bodies)
	})
	checkStream(t, msgs, map[int][][]byte{1: bodies}, map[int][]string{1: ids})
	t.Logf("%d events in the log, %d in the stream", len(bodies), len(msgs))
}

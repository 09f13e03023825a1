package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/server"
)

// replicaServer serves the primary's database with the standby as a read
// replica, its background work (the replicas' poll) started.
func replicaServer(t *testing.T, primaryURL, replicaURL, redisURL string) *httptest.Server {
	t.Helper()
	database := openMigrated(t, primaryURL) // migrated already: nothing to do
	cfg := testConfig()
	cfg.Replicas.URLs = []string{replicaURL}
	cfg.RedisURL = redisURL
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// Reads with a replica that applies what it receives 2 s late: hundreds
// of writes each read back at once — by the writer's token without the
// header (the token's last write), and by another token with the write's
// Records-Consistency — are never stale, and go to the primary; reads that
// may run on the replica do; another instance sharing the tokens' last
// writes through Redis honours them too; a malformed token is a 400; and
// once the replica stops, reads go on without an error.
func TestReplicaReadsSeeTheirWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL clusters of its own")
	}
	primary, standby := replicatedPair(t, "replicas", 2*time.Second, false)
	primaryURL, replicaURL := primary.URL("replicas"), standby.URL("replicas")
	if _, err := db.Open(context.Background(), db.Config{URL: replicaURL}); err == nil || !strings.Contains(err.Error(), "standby") {
		t.Errorf("the standby opened as the database: %v, want it refused as a standby", err)
	}
	database := openMigrated(t, primaryURL)
	store := auth.NewStore(database, 0)
	_, writer, err := store.Create(context.Background(), "writer", auth.Write, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, reader, err := store.Create(context.Background(), "reader", auth.Read, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	redisURL := dbtest.RedisURL(t)
	one := replicaServer(t, primaryURL, replicaURL, redisURL)
	two := replicaServer(t, primaryURL, replicaURL, redisURL)

	// The replica serves once it has replayed the migrations and the tokens.
	waitFor(t, 30*time.Second, "the replica to serve reads", func() bool {
		code, h, _ := send(t, one, reader, "GET", "/v1/customers", "")
		return code == 200 && h.Get("Records-Served-By") == "replica"
	})

	all := writeAndReadBack(t, one, two, writer, reader)

	// The replica catches up: then reads with the writes' tokens run there.
	time.Sleep(2500 * time.Millisecond)
	served := map[string]int{}
	for _, w := range all[len(all)-50:] {
		code, h, got := send(t, one, reader, "GET", "/v1/customers/"+w.id, "", "Records-Consistency", w.token)
		if code != 200 || !strings.Contains(got, w.id) {
			t.Errorf("read after the replica caught up: %d %s", code, got)
		}
		served[h.Get("Records-Served-By")]++
	}
	if served["replica"] != 50 {
		t.Errorf("reads that the replica may serve, once it has replayed their writes: served by %v, want the replica", served)
	}
	code, _, body := send(t, one, reader, "GET", "/v1/customers", "", "Records-Consistency", "not-a-token")
	if code != 400 || !strings.Contains(body, "Records-Consistency") {
		t.Errorf("a malformed token: %d %s, want 400 naming Records-Consistency", code, body)
	}
	wantMetrics(t, one, "records_replica_lag_seconds{", "records_replica_up{", `records_reads_total{served_by="replica"}`)

	// The replica stops: reads go on, from the primary.
	standby.Stop("immediate")
	served = map[string]int{}
	for i, w := range all[:100] {
		code, h, got := send(t, one, reader, "GET", "/v1/customers/"+w.id, "", "Records-Consistency", w.token)
		if code != 200 || !strings.Contains(got, w.id) {
			t.Errorf("read %d with the replica stopped: %d %s", i, code, got)
		}
		served[h.Get("Records-Served-By")]++
	}
	if served["primary"] != 100 {
		t.Errorf("with the replica stopped, reads served by %v, want the primary", served)
	}
}

// replicaWrite is a record written and the consistency token its write
// answered.
type replicaWrite struct{ id, token string }

// writeAndReadBack writes customers through one and reads each back at
// once — in turn by the writer without the header, on one and on two, and
// by the reader with the write's token — and checks that none is stale
// and none ran on the replica, 2 s behind.
func writeAndReadBack(t *testing.T, one, two *httptest.Server, writer, reader string) []replicaWrite {
	t.Helper()
	served := map[string]int{}
	stale := 0
	var all []replicaWrite
	const pairs = 300
	for i := range pairs {
		code, h, body := send(t, one, writer, "POST", "/v1/customers", fmt.Sprintf(`{"email":"pair-%d"}`, i))
		if code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		token := h.Get("Records-Consistency")
		if token == "" || h.Get("Records-Served-By") != "primary" {
			t.Fatalf("a write's answer without its token: %v", h)
		}
		var rec struct{ ID string }
		json.Unmarshal([]byte(body), &rec)
		all = append(all, replicaWrite{rec.ID, token})
		// Read back at once: in turn by the writer without the header, on
		// this instance and on the other one, and by another token with it.
		var code2 int
		var h2 http.Header
		var got string
		switch i % 3 {
		case 0:
			code2, h2, got = send(t, one, writer, "GET", "/v1/customers/"+rec.ID, "")
		case 1:
			code2, h2, got = send(t, two, writer, "GET", "/v1/customers?filter[id]="+rec.ID, "")
		default:
			code2, h2, got = send(t, two, reader, "GET", "/v1/customers/"+rec.ID, "", "Records-Consistency", token)
		}
		served[h2.Get("Records-Served-By")]++
		if code2 != 200 || !strings.Contains(got, rec.ID) {
			stale++
			t.Errorf("read %d right after its write: %d %s (served by %s)", i, code2, got, h2.Get("Records-Served-By"))
		}
	}
	t.Logf("%d writes each read back at once: %d stale; served by %v", pairs, stale, served)
	if served["replica"] > 0 {
		t.Errorf("%d reads right after their writes ran on a replica 2 s behind", served["replica"])
	}
	return all
}

// wantMetrics checks that the server's /metrics holds every name.
func wantMetrics(t *testing.T, ts *httptest.Server, names ...string) {
	t.Helper()
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range names {
		if !strings.Contains(string(metrics), m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
}

package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync/atomic"
	"testing"
)

// Connections take turns only where the runtime has one P at the moment
// and the database is in process, and a connection that yielded after its
// answer still reads its next request: keep-alive goes on over the same
// connection.
func TestConnectionsTakeTurnsOnlyOnOnePWithSQLite(t *testing.T) {
	var procs atomic.Int32
	var yields atomic.Int32
	if takeTurns(false, func() int { return 1 }, func() {}) != nil {
		t.Error("takeTurns(PostgreSQL) is a hook; connections take turns with SQLite only")
	}
	hook := takeTurns(true, func() int { return int(procs.Load()) }, func() { yields.Add(1) })
	if hook == nil {
		t.Fatal("takeTurns(SQLite) is nil")
	}
	// The Ps are asked at each answer: a CPU limit changed while the
	// server runs changes whether it yields.
	for _, c := range []struct {
		procs, want int32
		st          http.ConnState
	}{{1, 1, http.StateIdle}, {2, 0, http.StateIdle}, {64, 0, http.StateIdle}, {1, 0, http.StateActive}, {1, 0, http.StateNew}} {
		procs.Store(c.procs)
		yields.Store(0)
		hook(nil, c.st)
		if yields.Load() != c.want {
			t.Errorf("%d Ps, %v: %d yields, want %d", c.procs, c.st, yields.Load(), c.want)
		}
	}
	procs.Store(1)
	yields.Store(0)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = hook
	srv.Start()
	defer srv.Close()
	client := srv.Client()
	for i := range 3 {
		reused := false
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != "ok" {
			t.Fatalf("request %d: %q, %v", i, body, err)
		}
		if i > 0 && !reused {
			t.Errorf("request %d came on a new connection: the one before was not read again after its turn", i)
		}
	}
	if yields.Load() == 0 {
		t.Error("no connection yielded after its answer on one P")
	}
}

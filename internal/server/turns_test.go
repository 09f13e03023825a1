package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"testing"
)

// Connections take turns only where the runtime has one P and the
// database is in process, and a connection that yielded after its answer
// still reads its next request: keep-alive goes on over the same
// connection.
func TestConnectionsTakeTurnsOnlyOnOnePWithSQLite(t *testing.T) {
	for _, procs := range []int{2, 4, 64} {
		if takeTurns(procs, true) != nil {
			t.Errorf("takeTurns(%d, SQLite) is a hook; connections take turns on one P only", procs)
		}
	}
	if takeTurns(1, false) != nil {
		t.Error("takeTurns(1, PostgreSQL) is a hook; connections take turns with SQLite only")
	}
	hook := takeTurns(1, true)
	if hook == nil {
		t.Fatal("takeTurns(1, SQLite) is nil")
	}
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
}

package servertest

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/server"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Count is how many rows of table there are.
func Count(t *testing.T, database *db.DB, table string) int {
	t.Helper()
	var n int
	err := database.Each(context.Background(), 1, `SELECT COUNT(*) FROM "`+table+`"`, nil, func(rows *sql.Rows) error { return rows.Scan(&n) })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Serve serves srv on a real listener, closed when t ends.
func Serve(t *testing.T, srv *server.Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// Send makes a request to a real server and returns the status, the
// headers and the body.
func Send(t *testing.T, ts *httptest.Server, token, method, path, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// SecondServer is another instance on h's database, as another process
// would be (its own pool, its own caches), configured with cfg.
func SecondServer(t testing.TB, h *Harness, cfg server.Config) *server.Server {
	t.Helper()
	u := dbtest.URLOf(t, h.DB)
	database, err := db.Open(context.Background(), db.Config{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { database.Close() })
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// GaugeValue is the value of the metric name in a Prometheus text page.
func GaugeValue(t *testing.T, page, name string) float64 {
	t.Helper()
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("the metrics lack %s", name)
	return 0
}

// Events reads the caller's event log (GET path, a /v1/events address)
// until it answers at least want events, and returns that answer. On
// PostgreSQL the log holds back events while a transaction of the same
// database that began before them is running (the horizon, see
// internal/events/horizon.go), and the tests of other packages share the
// test database: a read right after a write may answer fewer events for
// a moment, never lose one. Giving up after a minute fails the test.
func (h *Harness) Events(path string, want int) *Response {
	h.T.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := h.Call("GET", path, "").Want(200)
		if len(r.List("events")) >= want || time.Now().After(deadline) {
			return r
		}
		time.Sleep(25 * time.Millisecond)
	}
}

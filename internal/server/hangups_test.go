package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/problem"
	"records/internal/server"
)

// A client hanging up is not a server error: lists and writes cut short
// count as 499, never 500 or 503, and leave nothing half-written.
func TestHangUpsAre499(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		if _, err := h.db.Exec(ctx, `INSERT INTO teams (id, name, created_at) VALUES (2, 'spare', ?)`, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3000; i++ {
			if _, err := h.db.Exec(ctx, `INSERT INTO users (id, team_id, bio) VALUES (?, 1, ?)`, fmt.Sprintf("u%05d", i), strings.Repeat("b", 200)); err != nil {
				t.Fatal(err)
			}
		}
		ts := startServer(t, h.srv)
		bulk := jsonArray(1000, func(i int) string { return fmt.Sprintf(`{"id":"h%d"}`, i) })
		var wg sync.WaitGroup
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%5)*time.Millisecond)
				defer cancel()
				method, path, body := "GET", "/v1/users?limit=1000&filter[bio][contains]=b&order_by=-bio", ""
				if i%4 == 0 {
					method, path, body = "POST", "/v1/packing_list_items", strings.ReplaceAll(bulk, `"h`, fmt.Sprintf(`"h%d-`, i))
				}
				req, _ := http.NewRequestWithContext(ctx, method, ts.URL+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+h.token)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				if resp, err := ts.Client().Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}(i)
		}
		wg.Wait()
		time.Sleep(200 * time.Millisecond) // let the server finish what it was cut off from
		if n := count(t, h.db, "packing_list_items"); n%1000 != 0 {
			t.Fatalf("%d packing list items: a bulk create was half-written", n)
		}
		metrics := h.callAs("", "GET", "/metrics", "").want(200)
		if !strings.Contains(string(metrics.Body), `status="499"`) {
			t.Error("no request was counted as a hang-up (499): the test cut none short")
		}
		for _, line := range strings.Split(string(metrics.Body), "\n") {
			if strings.HasPrefix(line, "records_http_requests_total") && (strings.Contains(line, `status="500"`) || strings.Contains(line, `status="503"`)) {
				t.Errorf("a hang-up counted as a server error: %s", line)
			}
		}
		if strings.Contains(h.logs.String(), `"level":"ERROR"`) {
			t.Errorf("a hang-up logged as an error:\n%.2000s", h.logs.String())
		}
	})
}

// An export the client hangs up on midway had answered 200 already; it is
// still counted and logged as what it ended with, a 499.
func TestExportHangUpIs499(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		fillUsers(t, h, 40000, 300)
		ts := startServer(t, h.srv)
		req, _ := http.NewRequest("GET", ts.URL+"/v1/users", nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("Accept", "application/x-ndjson")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("export: %d", resp.StatusCode)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 4096)); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // hangs up, some 12 MB unread
		ts.CloseClientConnections()
		var counted string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			metrics := h.callAs("", "GET", "/metrics", "").want(200)
			for _, line := range strings.Split(string(metrics.Body), "\n") {
				if strings.HasPrefix(line, "records_http_requests_total") && strings.Contains(line, `route="/v1/users"`) {
					counted = line
				}
			}
			if counted != "" {
				break
			}
		}
		if !strings.Contains(counted, `status="499"`) {
			t.Fatalf("the export cut short is counted as %q, want status 499", counted)
		}
		if !strings.Contains(h.logs.String(), `"status":499`) {
			t.Fatalf("the export cut short is not logged as a 499:\n%.3000s", h.logs.String())
		}
	})
}

// fillUsers adds n users to the default team, each with a bio of size
// characters, in one statement.
func fillUsers(t *testing.T, h *harness, n, size int) {
	t.Helper()
	fill := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO users (id, team_id, bio) SELECT 'u' || i, 1, substr(hex(zeroblob(?)), 1, ?) FROM n`
	args := []any{n, (size + 1) / 2, size}
	if h.db.Postgres() {
		fill = `INSERT INTO users (id, team_id, bio) SELECT 'u' || i, 1, repeat('b', ?) FROM generate_series(1, ?) i`
		args = []any{size, n}
	}
	if _, err := h.db.Exec(context.Background(), fill, args...); err != nil {
		t.Fatal(err)
	}
}

// A page whose filter no index serves can read a whole table; one that
// outlives its request is interrupted on both databases (on SQLite too,
// where reads run in process) and answered 503, never run to its end
// while its client waits past the deadline.
func TestAPageOutlivingItsRequestIs503(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, d, testConfig())
			fillUsers(t, h, 50000, 1000) // a scan of some 50 MB
			cfg := testConfig()
			cfg.RequestTimeout = 5 * time.Millisecond
			srv, err := server.New(cfg, h.db, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			h.srv = srv
			r := h.call("GET", "/v1/users?limit=10&filter[bio][contains]=not-there&count=exact", "")
			r.problem(503, string(problem.Unavailable))
			if r.Header.Get("Retry-After") == "" {
				t.Error("a 503 without Retry-After")
			}
			// An aggregate is one statement, cancelled the same way.
			h.call("GET", "/v1/users/aggregate?group_by=title&filter[bio][contains]=not-there", "").problem(503, string(problem.Unavailable))
		})
	}
}

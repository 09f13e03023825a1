package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/server"
)

// serveOn starts a server on h's database listening on a free port, with
// its connections' own deadlines, as records serve runs it.
func serveOn(t *testing.T, h *harness, timeout time.Duration) *server.Server {
	t.Helper()
	cfg := testConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.RequestTimeout = timeout
	srv, err := server.New(cfg, h.db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// A body that does not arrive within the request's time (and 5 s more) is answered 408
// request_timeout, the connection closed after it — not a hang-up (the
// client is there), never a status of the log's own (499) on the wire —
// and nothing is written.
func TestASlowBodyIs408(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		srv := serveOn(t, h, 300*time.Millisecond)
		conn, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"id\":\"slow\",", h.token)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a slow body: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		var p struct{ Code string }
		json.Unmarshal(body, &p)
		if resp.StatusCode != http.StatusRequestTimeout || p.Code != "request_timeout" || !resp.Close ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("a slow body: %d %v %s", resp.StatusCode, resp.Header, body)
		}
		if n := count(t, h.db, "customers"); n != 0 {
			t.Fatalf("%d customers after a body that never arrived", n)
		}
		resp, err = http.Get("http://" + srv.Addr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if counted := grepLines(string(m), "records_http_requests_total"); !strings.Contains(counted, `status="408"`) || strings.Contains(counted, `status="499"`) {
			t.Fatalf("a slow body is not counted as a 408:\n%s", counted)
		}
	})
}

// Work that outlives its request on a real server — its connection's read
// deadline near — is answered 503 by the request's deadline, never ended
// as a hang-up with a 499 on the wire.
func TestWorkPastTheDeadlineIs503OnAServer(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, d, testConfig())
			fillUsers(t, h, 50000, 1000)
			srv := serveOn(t, h, 30*time.Millisecond)
			for range 3 {
				req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/v1/users?limit=10&filter[bio][contains]=not-there&count=exact", nil)
				req.Header.Set("Authorization", "Bearer "+h.token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("work past its deadline: %d %s", resp.StatusCode, body)
				}
			}
		})
	}
}

// grepLines keeps the lines of s that start with prefix.
func grepLines(s, prefix string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

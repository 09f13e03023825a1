package console

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/dbtest"
)

// The console in a real browser (Debian's Chromium driven by Playwright)
// against a real `records serve` built from this tree, on SQLite and on
// PostgreSQL: sign-in, navigation, filters, order, pages, count, export,
// create, edit, the 412 conflict, problems beside their fields, history
// and a revert to an earlier version, trash and restore, a read-scoped
// token offered no write, the live stream across a broken
// connection, and webhooks. Screenshots of each page go to
// console/screenshots/<database>/ (kept out of git); the test prints the
// folder and the timings the script measured.
func TestConsoleInBrowser(t *testing.T) {
	requireTools(t, "node", chromium)
	compile(t)
	records := buildRecords(t)
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			dbURL := dbtest.URL(t, d)
			write := newToken(t, records, dbURL, "console", "write")
			read := newToken(t, records, dbURL, "reader", "read")
			api := startServe(t, records, dbURL)
			cut := newStreamCutter(t, api)
			front := httptest.NewServer(cut)
			t.Cleanup(front.Close)
			hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(hooks.Close)
			shots, err := filepath.Abs(filepath.Join(srcDir, "screenshots", dbtest.Name(d)))
			if err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(shots)
			if err := os.MkdirAll(shots, 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := run(t.Context(), srcDir, []string{
				"CONSOLE_URL=" + front.URL,
				"API_URL=" + api,
				"RECORDS_TOKEN=" + write,
				"READ_TOKEN=" + read,
				"HOOK_URL=" + hooks.URL,
				"SHOTS=" + shots,
				"CHROMIUM=" + chromium,
			}, "node", filepath.Join("build", "console", "e2e", "console.e2e.js"))
			if err != nil {
				t.Fatalf("screenshots: %s\n%v", shots, err)
			}
			t.Logf("screenshots: %s\n%s", shots, out)
		})
	}
}

// buildRecords builds the records command from this tree.
func buildRecords(t *testing.T) string {
	t.Helper()
	records := filepath.Join(t.TempDir(), "records")
	if _, err := run(t.Context(), "../..", nil, "go", "build", "-o", records, "./cmd/records"); err != nil {
		t.Fatal(err)
	}
	return records
}

// newToken makes a token with the records command and answers its secret.
func newToken(t *testing.T, records, dbURL, name, scope string) string {
	t.Helper()
	out, err := run(t.Context(), ".", nil, records, "token", "create", "--name", name, "--scope", scope, "--database-url", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

var servingLine = regexp.MustCompile(`serving on (http://\S+)`)

// startServe runs `records serve` on a free port until the test ends and
// answers its base URL.
func startServe(t *testing.T, records, dbURL string) string {
	t.Helper()
	cmd := exec.Command(records, "serve", "--addr", "127.0.0.1:0", "--database-url", dbURL,
		"--webhook-allow-private", "--webhook-retry-schedule", "1s",
		"--rate-limit", "100000", "--rate-burst", "100000", "--token-cache", "0", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base
	case <-time.After(60 * time.Second):
		t.Fatal("records serve did not start listening")
		return ""
	}
}

// streamCutter is the console's way to the server: a reverse proxy that
// can break the event streams passing through it and refuse new ones
// until told to let them through again, so that the browser test sees the
// console reconnect and resume with Last-Event-ID, losing nothing
// committed meanwhile. Its controls are POST /__test/cut and
// /__test/resume, and GET /__test/streams (the Last-Event-ID of every
// stream asked for).
type streamCutter struct {
	proxy   *httputil.ReverseProxy
	mu      sync.Mutex
	cut     bool
	cancels map[*http.Request]context.CancelFunc
	resumes []string
}

func newStreamCutter(t *testing.T, api string) *streamCutter {
	u, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	p.ErrorLog = nil
	return &streamCutter{proxy: p, cancels: map[*http.Request]context.CancelFunc{}}
}

func (s *streamCutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/__test/cut":
		s.mu.Lock()
		s.cut = true
		for _, cancel := range s.cancels {
			cancel()
		}
		s.mu.Unlock()
		return
	case "/__test/resume":
		s.mu.Lock()
		s.cut = false
		s.mu.Unlock()
		return
	case "/__test/streams":
		s.mu.Lock()
		defer s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"last_event_ids": s.resumes})
		return
	case "/v1/events/stream":
		s.mu.Lock()
		if s.cut {
			s.mu.Unlock()
			http.Error(w, "cut by the test", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		s.cancels[r] = cancel
		s.resumes = append(s.resumes, r.Header.Get("Last-Event-ID"))
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.cancels, r)
			s.mu.Unlock()
			cancel()
		}()
		s.proxy.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	s.proxy.ServeHTTP(w, r)
}

// The console pages through a large list by cursor at the same speed deep
// in it as at its start: CONSOLE_SCALE=100000 seeds that many returns and
// prints the browser's page times at the start and 90 % down (a
// measurement, not a test: it asserts nothing on time, and is skipped
// without the variable).
func TestConsolePagingAtScale(t *testing.T) {
	scale := os.Getenv("CONSOLE_SCALE")
	if scale == "" {
		t.Skip("set CONSOLE_SCALE=100000 to measure paging through that many records")
	}
	requireTools(t, "node", chromium)
	compile(t)
	records := buildRecords(t)
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			dbURL := dbtest.URL(t, d)
			write := newToken(t, records, dbURL, "console", "write")
			api := startServe(t, records, dbURL)
			out, err := run(t.Context(), srcDir, []string{"CONSOLE_URL=" + api, "RECORDS_TOKEN=" + write, "CHROMIUM=" + chromium, "SCALE=" + scale},
				"node", filepath.Join("build", "console", "e2e", "scale.e2e.js"))
			if err != nil {
				t.Fatal(err)
			}
			t.Log(out)
		})
	}
}

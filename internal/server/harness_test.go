package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/server"
)

// harness drives a real server (gin engine, database) in process.
type harness struct {
	t      testing.TB
	db     *db.DB
	srv    *server.Server
	token  string // a write token of the default team
	logs   *bytes.Buffer
	header map[string]string // sent with every request
	// unchecked skips the contract check (see checkContract): for the
	// oracle's thousands of pages, whose first pages it checks.
	unchecked bool
}

// testConfig is the server's configuration in tests: the documented
// defaults, but no rate limit to speak of and no token cache, so a test
// can send many requests and see a revocation at once.
func testConfig() server.Config {
	cfg := server.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e6, 1e6
	cfg.TokenCacheTTL = 0
	return cfg
}

// each runs fn on a fresh server per database, in parallel.
func each(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			fn(t, newHarness(t, d, testConfig()))
		})
	}
}

// eachCollation is each, and once more on PostgreSQL in a database whose
// default collation is ICU's en-US (dbtest.PostgresICU): for the cases of
// text order and comparison, whose answers must not depend on it.
func eachCollation(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	for _, d := range dbtest.Collations {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			fn(t, newHarness(t, d, testConfig()))
		})
	}
}

func newHarness(t testing.TB, dialect string, cfg server.Config) *harness {
	t.Helper()
	logs := &bytes.Buffer{}
	return newHarnessLogging(t, dialect, cfg, &lockedWriter{w: logs}, logs)
}

func newHarnessLogging(t testing.TB, dialect string, cfg server.Config, w io.Writer, logs *bytes.Buffer) *harness {
	t.Helper()
	return newHarnessOn(t, dbtest.Open(t, dialect), cfg, w, logs)
}

// newHarnessOn is a harness serving database, migrated.
func newHarnessOn(t testing.TB, database *db.DB, cfg server.Config, w io.Writer, logs *bytes.Buffer) *harness {
	t.Helper()
	h := &harness{t: t, db: database, logs: logs}
	srv, err := server.New(cfg, database, w)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.token = h.newToken("tests", auth.Write, "")
	return h
}

// newToken issues a token and returns its secret.
func (h *harness) newToken(name string, scope auth.Scope, team string) string {
	h.t.Helper()
	_, secret, err := auth.NewStore(h.db, 0).Create(context.Background(), name, scope, team, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return secret
}

// response is an answer, with its body decoded when it is JSON.
type response struct {
	t      testing.TB
	Status int
	Header http.Header
	Body   []byte
	JSON   any
}

// call sends a request with the harness's token, and checks the exchange
// against the OpenAPI document (see checkContract). A non-empty body is sent
// as application/json unless headers say otherwise; headers are name,
// value pairs (an empty value removes the header; the name RemoteAddr sets
// the peer's address instead).
func (h *harness) call(method, path, body string, headers ...string) *response {
	h.t.Helper()
	return h.callAs(h.token, method, path, body, headers...)
}

func (h *harness) callAs(token, method, path, body string, headers ...string) *response {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range h.header {
		req.Header.Set(k, v)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "RemoteAddr" { // not a header: the peer's address
			req.RemoteAddr = headers[i+1]
			continue
		}
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(w, req)
	if !h.unchecked {
		checkContract(h.t, req, []byte(body), w)
	}
	r := &response{t: h.t, Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
	if ct := w.Header().Get("Content-Type"); strings.Contains(ct, "json") && len(r.Body) > 0 {
		d := json.NewDecoder(bytes.NewReader(r.Body))
		d.UseNumber()
		if err := d.Decode(&r.JSON); err != nil {
			h.t.Fatalf("%s %s answered invalid JSON (%v): %s", method, path, err, r.Body)
		}
	}
	return r
}

// want fails unless the status is status.
func (r *response) want(status int) *response {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("want status %d, got %d: %s", status, r.Status, r.Body)
	}
	return r
}

// at walks into the decoded body: object keys and array indexes.
func (r *response) at(path ...any) any {
	r.t.Helper()
	return dig(r.t, r.JSON, path...)
}

// obj is at, asserting an object.
func (r *response) obj(path ...any) map[string]any {
	r.t.Helper()
	v, ok := r.at(path...).(map[string]any)
	if !ok {
		r.t.Fatalf("at %v: want an object in %s", path, r.Body)
	}
	return v
}

// list is at, asserting an array.
func (r *response) list(path ...any) []any {
	r.t.Helper()
	v, ok := r.at(path...).([]any)
	if !ok {
		r.t.Fatalf("at %v: want an array in %s", path, r.Body)
	}
	return v
}

func dig(t testing.TB, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("want an object holding %q, got %v", k, v)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("no member %q in %v", k, m)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("want an array with index %d, got %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

// problem checks a problem+json answer: status, code, and that the members
// named are among those at fault.
func (r *response) problem(status int, code string, members ...string) *response {
	r.t.Helper()
	r.want(status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		r.t.Fatalf("a problem must be application/problem+json, got %q", ct)
	}
	p := r.obj()
	if p["code"] != code {
		r.t.Fatalf("want code %s, got %v: %s", code, p["code"], r.Body)
	}
	if p["status"] != json.Number(strconv.Itoa(status)) || p["success"] != json.Number("0") {
		r.t.Fatalf("problem status/success wrong: %s", r.Body)
	}
	for _, k := range []string{"type", "title", "detail", "request_id", "errors"} {
		if _, ok := p[k]; !ok {
			r.t.Fatalf("problem lacks %s: %s", k, r.Body)
		}
	}
	if p["request_id"] != r.Header.Get("X-Request-Id") || p["request_id"] == "" {
		r.t.Fatalf("request_id %v differs from X-Request-Id %q", p["request_id"], r.Header.Get("X-Request-Id"))
	}
	faulty := map[string]string{}
	for _, e := range r.list("errors") {
		m := e.(map[string]any)
		faulty[m["member"].(string)] = m["problem"].(string)
	}
	for _, m := range members {
		if _, ok := faulty[m]; !ok {
			r.t.Fatalf("want member %q named at fault, got %v (%s)", m, faulty, r.Body)
		}
	}
	return r
}

// mentions fails unless the body contains every text.
func (r *response) mentions(texts ...string) *response {
	r.t.Helper()
	for _, s := range texts {
		if !strings.Contains(string(r.Body), s) {
			r.t.Fatalf("want the answer to mention %q: %s", s, r.Body)
		}
	}
	return r
}

// lockedWriter lets the server's goroutines share the log buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

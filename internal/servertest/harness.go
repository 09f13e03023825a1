// Package servertest drives a real server in process for tests: a fresh
// database per test (package dbtest), the gin engine serving it, a token,
// and every exchange checked against the OpenAPI document. The service's
// tests (package server) and those of the packages it wires — events,
// webhooks — share it.
package servertest

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

// Harness drives a real server (gin engine, database) in process.
type Harness struct {
	T      testing.TB
	DB     *db.DB
	Srv    *server.Server
	Token  string // a write token of the default team
	Logs   *Log
	Header map[string]string // sent with every request
	// Unchecked skips the contract check (see CheckContract): for the
	// oracle's thousands of pages, whose first pages it checks.
	Unchecked bool
}

// Config is the server's configuration in tests: the documented
// defaults, but no rate limit to speak of and no token cache, so a test
// can send many requests and see a revocation at once.
func Config() server.Config {
	cfg := server.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e6, 1e6
	cfg.TokenCacheTTL = 0
	return cfg
}

// Each runs fn on a fresh server per database, in parallel.
func Each(t *testing.T, fn func(t *testing.T, h *Harness)) {
	t.Helper()
	eachOf(t, dbtest.Dialects, fn)
}

// EachCollation is Each, and once more on PostgreSQL in a database whose
// default collation is ICU's en-US (dbtest.PostgresICU): for the cases of
// text order and comparison, whose answers must not depend on it.
func EachCollation(t *testing.T, fn func(t *testing.T, h *Harness)) {
	t.Helper()
	eachOf(t, dbtest.Collations, fn)
}

func eachOf(t *testing.T, dialects []string, fn func(t *testing.T, h *Harness)) {
	t.Helper()
	for _, d := range dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			fn(t, New(t, d, Config()))
		})
	}
}

// New is a harness of a fresh database of the dialect, its log in a buffer.
func New(t testing.TB, dialect string, cfg server.Config) *Harness {
	t.Helper()
	return NewLogging(t, dialect, cfg, &Log{})
}

// NewLogging is New, logging to logs.
func NewLogging(t testing.TB, dialect string, cfg server.Config, logs *Log) *Harness {
	t.Helper()
	return NewOn(t, dbtest.Open(t, dialect), cfg, logs)
}

// NewOn is a harness serving database, migrated.
func NewOn(t testing.TB, database *db.DB, cfg server.Config, logs *Log) *Harness {
	t.Helper()
	h := &Harness{T: t, DB: database, Logs: logs}
	srv, err := server.New(cfg, database, logs)
	if err != nil {
		t.Fatal(err)
	}
	h.Srv = srv
	h.Token = h.NewToken("tests", auth.Write, "")
	return h
}

// NewToken issues a token and returns its secret.
func (h *Harness) NewToken(name string, scope auth.Scope, team string) string {
	h.T.Helper()
	_, secret, err := auth.NewStore(h.DB, 0).Create(context.Background(), name, scope, team, 0)
	if err != nil {
		h.T.Fatal(err)
	}
	return secret
}

// Response is an answer, with its body decoded when it is JSON.
type Response struct {
	T      testing.TB
	Status int
	Header http.Header
	Body   []byte
	JSON   any
}

// Call sends a request with the harness's token, and checks the exchange
// against the OpenAPI document (see CheckContract). A non-empty body is sent
// as application/json unless headers say otherwise; headers are name,
// value pairs (an empty value removes the header; the name RemoteAddr sets
// the peer's address instead).
func (h *Harness) Call(method, path, body string, headers ...string) *Response {
	h.T.Helper()
	return h.CallAs(h.Token, method, path, body, headers...)
}

// CallAs is Call with another token ("" for none).
func (h *Harness) CallAs(token, method, path, body string, headers ...string) *Response {
	h.T.Helper()
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
	for k, v := range h.Header {
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
	h.Srv.Handler().ServeHTTP(w, req)
	if !h.Unchecked {
		CheckContract(h.T, req, []byte(body), w)
	}
	r := &Response{T: h.T, Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
	if ct := w.Header().Get("Content-Type"); strings.Contains(ct, "json") && len(r.Body) > 0 {
		d := json.NewDecoder(bytes.NewReader(r.Body))
		d.UseNumber()
		if err := d.Decode(&r.JSON); err != nil {
			h.T.Fatalf("%s %s answered invalid JSON (%v): %s", method, path, err, r.Body)
		}
	}
	return r
}

// Want fails unless the status is status.
func (r *Response) Want(status int) *Response {
	r.T.Helper()
	if r.Status != status {
		r.T.Fatalf("want status %d, got %d: %s", status, r.Status, r.Body)
	}
	return r
}

// At walks into the decoded body: object keys and array indexes.
func (r *Response) At(path ...any) any {
	r.T.Helper()
	return Dig(r.T, r.JSON, path...)
}

// Obj is At, asserting an object.
func (r *Response) Obj(path ...any) map[string]any {
	r.T.Helper()
	v, ok := r.At(path...).(map[string]any)
	if !ok {
		r.T.Fatalf("at %v: want an object in %s", path, r.Body)
	}
	return v
}

// List is At, asserting an array.
func (r *Response) List(path ...any) []any {
	r.T.Helper()
	v, ok := r.At(path...).([]any)
	if !ok {
		r.T.Fatalf("at %v: want an array in %s", path, r.Body)
	}
	return v
}

// Dig walks into v: object keys and array indexes.
func Dig(t testing.TB, v any, path ...any) any {
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

// Problem checks a problem+json answer: status, code, and that the members
// named are among those at fault.
func (r *Response) Problem(status int, code string, members ...string) *Response {
	r.T.Helper()
	r.Want(status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		r.T.Fatalf("a problem must be application/problem+json, got %q", ct)
	}
	p := r.Obj()
	if p["code"] != code {
		r.T.Fatalf("want code %s, got %v: %s", code, p["code"], r.Body)
	}
	if p["status"] != json.Number(strconv.Itoa(status)) || p["success"] != json.Number("0") {
		r.T.Fatalf("problem status/success wrong: %s", r.Body)
	}
	for _, k := range []string{"type", "title", "detail", "request_id", "errors"} {
		if _, ok := p[k]; !ok {
			r.T.Fatalf("problem lacks %s: %s", k, r.Body)
		}
	}
	if p["request_id"] != r.Header.Get("X-Request-Id") || p["request_id"] == "" {
		r.T.Fatalf("request_id %v differs from X-Request-Id %q", p["request_id"], r.Header.Get("X-Request-Id"))
	}
	faulty := map[string]string{}
	for _, e := range r.List("errors") {
		m := e.(map[string]any)
		faulty[m["member"].(string)] = m["problem"].(string)
	}
	for _, m := range members {
		if _, ok := faulty[m]; !ok {
			r.T.Fatalf("want member %q named at fault, got %v (%s)", m, faulty, r.Body)
		}
	}
	return r
}

// Mentions fails unless the body contains every text.
func (r *Response) Mentions(texts ...string) *Response {
	r.T.Helper()
	for _, s := range texts {
		if !strings.Contains(string(r.Body), s) {
			r.T.Fatalf("want the answer to mention %q: %s", s, r.Body)
		}
	}
	return r
}

// Log is a test server's log: the server's goroutines write it while the
// test reads it, one at a time.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the log.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what the log holds so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

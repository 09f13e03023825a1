package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"records/client"
	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/server"
)

// env is a real server (the gin engine over a fresh database) listening on
// a loopback port, and a client of it whose requests are counted by route.
type env struct {
	base  string // the server's URL
	token string // a write token of the default team
	c     *client.Client
	hits  *hits
	// hooks receives the webhook deliveries the server makes.
	hooks *httptest.Server
}

func newEnv(t *testing.T, dialect string) *env {
	t.Helper()
	database := dbtest.Open(t, dialect)
	cfg := server.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e6, 1e6
	cfg.TokenCacheTTL = 0
	cfg.Webhooks.AllowPrivate = true
	cfg.Webhooks.Schedule = []time.Duration{time.Second}
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	_, token, err := auth.NewStore(database, 0).Create(context.Background(), "e2e", auth.Write, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	t.Cleanup(hooks.Close)
	h := &hits{seen: map[string]int{}}
	hc := &http.Client{Transport: h.wrap(http.DefaultTransport)}
	return &env{base: ts.URL, token: token, c: client.New(ts.URL, client.WithToken(token), client.WithHTTPClient(hc)), hits: h, hooks: hooks}
}

// hits counts the client's requests by route of client.Routes.
type hits struct {
	mu   sync.Mutex
	seen map[string]int // "METHOD /path/{id}" → requests
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (h *hits) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		if rt, ok := routeOf(r.Method, r.URL.Path); ok {
			h.mu.Lock()
			h.seen[rt.Method+" "+rt.Path]++
			h.mu.Unlock()
		}
		return next.RoundTrip(r)
	})
}

func (h *hits) count(method, path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[method+" "+path]
}

// routePatterns match a request's path to a route of client.Routes.
var routePatterns = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(client.Routes))
	for i, rt := range client.Routes {
		out[i] = regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(rt.Path), `\{id\}`, `[^/]+`) + "$")
	}
	return out
}()

// routeOf is the route a request goes to: of those matching, the one with
// the fewest parameters, as the router prefers a literal segment.
func routeOf(method, path string) (client.Route, bool) {
	best, found := client.Route{}, false
	for i, rt := range client.Routes {
		if rt.Method != method || !routePatterns[i].MatchString(path) {
			continue
		}
		if !found || strings.Count(rt.Path, "{") < strings.Count(best.Path, "{") {
			best, found = rt, true
		}
	}
	return best, found
}

// checkEveryRouteSent fails for each route the client sends to that no
// test has sent a request to.
func (e *env) checkEveryRouteSent(t *testing.T) {
	t.Helper()
	for _, rt := range client.Routes {
		if rt.Sends && e.hits.count(rt.Method, rt.Path) == 0 {
			t.Errorf("no test sent %s %s (%s)", rt.Method, rt.Path, rt.Call)
		}
	}
}

// parts are the client's tests, run in order on one server per database;
// every route the client sends to must then have been sent to.
var parts = []struct {
	name string
	run  func(t *testing.T, e *env)
}{
	{"generic routes", testGenericRoutes},
	{"operations", testOperations},
	{"lists", testLists},
	{"problems", testProblems},
	{"idempotency", testIdempotency},
	{"preconditions", testPreconditions},
	{"events", testEvents},
	{"webhooks", testWebhooks},
	{"me", testMe},
	{"totals", testTotals},
}

func TestGoClient(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, d)
			for _, p := range parts {
				runPart(t, p.name, func(t *testing.T) { p.run(t, e) })
			}
			e.checkEveryRouteSent(t)
		})
	}
}

// must returns v, or, on err, stops the test run by runPart, naming the
// line that called it.
func must[T any](v T, err error) T {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(failure{fmt.Errorf("%s:%d: %w", filepath.Base(file), line, err)})
	}
	return v
}

// failure is must's panic.
type failure struct{ err error }

// runPart runs fn as the subtest name, failing it when must stops it.
func runPart(t *testing.T, name string, fn func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				f, ok := r.(failure)
				if !ok {
					panic(r)
				}
				t.Fatal(f.err)
			}
		}()
		fn(t)
	})
}

// problem fails unless err is a *client.Problem of the status and code
// naming the members.
func problem(t *testing.T, err error, status int, code string, members ...string) *client.Problem {
	t.Helper()
	var p *client.Problem
	if !errors.As(err, &p) {
		t.Fatalf("want a *client.Problem %d %s, got %T %v", status, code, err, err)
	}
	if p.Status != status || p.Code != code || p.RequestID == "" || p.Title == "" {
		t.Fatalf("want problem %d %s with a request id and title, got %+v", status, code, p)
	}
	for _, m := range members {
		if _, ok := p.Member(m); !ok {
			t.Fatalf("want member %q named, got %+v", m, p.Errors)
		}
	}
	return p
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

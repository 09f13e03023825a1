package edge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/lib/pq"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/problem"
	"records/internal/spec"
	"records/internal/tenant"
)

func init() { gin.SetMode(gin.ReleaseMode) }

// Every kind of error a handler can meet becomes the problem the contract
// gives it; only what is left is internal.
func TestToProblemClassifies(t *testing.T) {
	own := problem.Member("email", "is taken")
	cases := []struct {
		name string
		err  error
		want problem.Code
	}{
		{"a problem passes through", own, problem.InvalidRequest},
		{"a wrapped problem too", errors.Join(errors.New("context"), own), problem.InvalidRequest},
		{"a missing parent", db.Classify(nil, &pq.Error{Code: "23503"}), problem.InvalidRequest},
		{"a missing parent not yet typed", &pq.Error{Code: "23503"}, problem.InvalidRequest},
		{"the database refused the connection", syscall.ECONNREFUSED, problem.Unavailable},
		{"the database shutting down", &pq.Error{Code: "57P01"}, problem.Unavailable},
		{"a demoted primary", &pq.Error{Code: "25006"}, problem.Unavailable},
		{"a connection lost", db.Classify(nil, syscall.ECONNRESET), problem.Unavailable},
		{"a deadline", context.DeadlineExceeded, problem.Unavailable},
		{"a cancellation", context.Canceled, problem.Unavailable},
		{"anything else", errors.New("boom"), problem.Internal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ToProblem(c.err)
			if p.Code != c.want {
				t.Fatalf("%v → %s, want %s", c.err, p.Code, c.want)
			}
			if p.Code == problem.Unavailable && p.RetryAfter <= 0 {
				t.Fatal("a 503 says when to retry")
			}
		})
	}
}

// Fail writes the problem document and the headers its code calls for.
func TestFailRendersTheProblem(t *testing.T) {
	cases := []struct {
		err     error
		status  int
		headers map[string]string
	}{
		{problem.New(problem.Unauthenticated, "no token"), 401, map[string]string{"WWW-Authenticate": `Bearer realm="records"`}},
		{&problem.Error{Code: problem.RateLimited, RetryAfter: 3}, 429, map[string]string{"Retry-After": "3"}},
		{&problem.Error{Code: problem.MethodNotAllowed, Allow: []string{"GET", "PUT"}}, 405, map[string]string{"Allow": "GET, PUT"}},
		{problem.Wrap(errors.New("secret cause")), 500, nil},
		{db.Classify(nil, &pq.Error{Code: "08006"}), 503, map[string]string{"Retry-After": "2"}},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		ctx, _ := gin.CreateTestContext(w)
		ctx.Request = httptest.NewRequest("GET", "/", nil)
		RequestID(ctx)
		Fail(ctx, c.err)
		if w.Code != c.status || w.Header().Get("Content-Type") != "application/problem+json" || !ctx.IsAborted() {
			t.Fatalf("%v: %d %v", c.err, w.Code, w.Header())
		}
		for k, v := range c.headers {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%v: %s %q, want %q", c.err, k, got, v)
			}
		}
		var doc map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc["request_id"] != w.Header().Get("X-Request-Id") || doc["status"] != float64(c.status) {
			t.Errorf("%v: %s", c.err, w.Body)
		}
		if _, kept := ctx.Get(KeyProblem); !kept {
			t.Error("the access log reads the problem back from the context")
		}
		if strings.Contains(w.Body.String(), "secret cause") {
			t.Errorf("an internal problem's cause is never sent: %s", w.Body)
		}
	}
}

// Unknown routes are 404 and wrong methods 405 with Allow, as problems;
// deprecated routes mark every answer.
func TestRouter(t *testing.T) {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	r := NewRouter(e, Guards{})
	ok := func(c *gin.Context) { c.Status(http.StatusNoContent) }
	r.Handle(Route{Method: "GET", Path: "/v1/things", Kind: spec.List}, ok)
	r.Handle(Route{Method: "PUT", Path: "/v1/thing", Kind: spec.Upsert, Deprecated: true, Successor: "/v1/things/{id}"}, ok)
	r.Public(spec.PathHealth, ok)
	cases := []struct {
		method, path string
		status       int
		header, want string
	}{
		{"GET", "/v1/things", 204, "", ""},
		{"GET", "/v1/nothing", 404, "Content-Type", "application/problem+json"},
		{"POST", "/v1/things", 405, "Allow", "GET, HEAD"},
		{"HEAD", "/v1/things", 204, "", ""},
		{"PUT", "/v1/thing", 204, "Deprecation", spec.DeprecationDate},
		{"PUT", "/v1/thing", 204, "Link", `</v1/things/{id}>; rel="successor-version"`},
		{"GET", "/healthz", 204, "", ""},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Code != c.status || (c.header != "" && w.Header().Get(c.header) != c.want) {
			t.Errorf("%s %s: %d %v", c.method, c.path, w.Code, w.Header())
		}
	}
	if got := len(r.Routes()); got != 3 {
		t.Errorf("%d routes remembered, want 3", got)
	}
}

// An authenticated context carries the principal, its team and the
// deadline, which is in force only where work can wait.
func TestRequestContext(t *testing.T) {
	p := auth.Principal{TokenID: "t1", Team: 7, Scope: auth.Read}
	deadline := time.Now().Add(time.Hour)
	ctx := Authenticated(context.Background(), p, deadline, "")
	if got, _ := auth.FromContext(ctx); got.TokenID != p.TokenID || got.Team != p.Team || got.Scope != p.Scope {
		t.Errorf("principal %v", got)
	}
	if team, _ := tenant.Team(ctx); team != 7 {
		t.Errorf("team %d", team)
	}
	if _, set := ctx.Deadline(); set {
		t.Error("the deadline is a value until something can wait on it")
	}
	bounded, cancel := Bounded(ctx)
	defer cancel()
	if d, set := bounded.Deadline(); !set || !d.Equal(deadline) {
		t.Errorf("bounded deadline %v %v", d, set)
	}
	if _, err := Unbounded(ctx); err != nil {
		t.Errorf("before the deadline: %v", err)
	}
	late := Authenticated(context.Background(), p, time.Now().Add(-time.Second), "")
	if _, err := Unbounded(late); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the deadline: %v", err)
	}
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	if _, err := Unbounded(Authenticated(gone, p, deadline, "")); !errors.Is(err, context.Canceled) {
		t.Errorf("a request whose client left: %v", err)
	}
}

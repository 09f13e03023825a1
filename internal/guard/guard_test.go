package guard

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/problem"
)

func init() { gin.SetMode(gin.ReleaseMode) }

func TestCredentials(t *testing.T) {
	cases := []struct {
		header, key string
		ok          bool
	}{
		{"Bearer rk_abc", "rk_abc", true},
		{"bearer rk_abc", "rk_abc", true},
		{"TOKEN rk_abc", "rk_abc", true},
		{"Bearer   rk_abc  ", "rk_abc", true},
		{"", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer", "", false},
		{"Bearer a b", "", false},
		{"Bearer a\tb", "", false},
	}
	for _, c := range cases {
		key, why := credentials([]string{c.header})
		if (why == "") != c.ok || key != c.key {
			t.Errorf("%q: key %q, problem %q", c.header, key, why)
		}
	}
	if key, why := credentials(nil); key != "" || why == "" {
		t.Errorf("no header: key %q, problem %q", key, why)
	}
}

// Two Authorization headers are refused, whichever holds a good token:
// reading one of them would be a guess another server may not share.
func TestTwoAuthorizationHeaders(t *testing.T) {
	for _, headers := range [][]string{{"Bearer rk_abc", "Bearer rk_bogus"}, {"Bearer rk_bogus", "Bearer rk_abc"}, {"Bearer rk_abc", "Bearer rk_abc"}} {
		key, why := credentials(headers)
		if key != "" || !strings.Contains(why, "only one Authorization header may be sent") {
			t.Errorf("%q: key %q, problem %q", headers, key, why)
		}
	}
	e := gin.New()
	e.GET("/", Authenticate(verifier{"good"}, time.Minute, Proxies{}), func(c *gin.Context) { c.Status(204) })
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Add("Authorization", "Bearer good")
	req.Header.Add("Authorization", "Bearer bogus")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("two headers: %d %v, want 401 with WWW-Authenticate", w.Code, w.Header())
	}
	if !strings.Contains(w.Body.String(), "only one Authorization header may be sent") {
		t.Fatalf("the detail does not say why: %s", w.Body)
	}
}

// verifier accepts one secret.
type verifier struct{ secret string }

func (v verifier) Verify(_ context.Context, secret string) (auth.Principal, error) {
	if secret == v.secret {
		return auth.Principal{TokenID: "t1", Team: 3, Scope: auth.Read}, nil
	}
	return auth.Principal{}, auth.ErrInvalidToken
}

// A good token admits the request with its principal; bad ones are 401
// until the address has failed too often, then 429 without a lookup.
func TestAuthenticate(t *testing.T) {
	e := gin.New()
	var seen auth.Principal
	proxies, _ := ParseProxies("10.0.0.1")
	e.GET("/", Authenticate(verifier{"good"}, time.Minute, proxies), func(c *gin.Context) {
		seen, _ = auth.FromContext(c.Request.Context())
		c.Status(204)
	})
	// via calls from the client through the trusted proxy 10.0.0.1.
	via := func(header, client string) int {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "192.0.2.1:1234"
		if client != "" {
			req.RemoteAddr = "10.0.0.1:1234"
			req.Header.Set("X-Forwarded-For", client)
		}
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		return w.Code
	}
	call := func(header string) int { return via(header, "") }
	if code := call("Bearer good"); code != 204 || seen.Team != 3 {
		t.Fatalf("good token: %d, principal %v", code, seen)
	}
	for i := 0; i < failBurst; i++ {
		if code := call("Bearer bad"); code != 401 {
			t.Fatalf("failure %d: %d, want 401", i, code)
		}
	}
	if code := call("Bearer bad"); code != 429 {
		t.Fatalf("past the burst of failures: %d, want 429", code)
	}
	if code := call("Bearer good"); code != 429 {
		t.Fatalf("a braked address is braked for every token: %d", code)
	}
	// Behind a trusted proxy, clients are braked each on its own: one
	// guessing tokens does not lock out the others.
	for i := 0; i <= failBurst; i++ {
		via("Bearer bad", "198.51.100.1")
	}
	if code := via("Bearer bad", "198.51.100.1"); code != 429 {
		t.Fatalf("the guessing client behind the proxy: %d, want 429", code)
	}
	if code := via("Bearer good", "198.51.100.2"); code != 204 {
		t.Fatalf("another client behind the same proxy: %d, want 204", code)
	}
}

func TestMayWrite(t *testing.T) {
	deadline := time.Now().Add(time.Minute)
	read := edge.Authenticated(context.Background(), auth.Principal{Scope: auth.Read}, deadline, "")
	write := edge.Authenticated(context.Background(), auth.Principal{Scope: auth.Write}, deadline, "")
	var p *problem.Error
	if err := MayWrite(read); !errors.As(err, &p) || p.Code != problem.Forbidden {
		t.Errorf("read scope: %v", err)
	}
	if err := MayWrite(write); err != nil {
		t.Errorf("write scope: %v", err)
	}
}

func TestLimiters(t *testing.T) {
	l := newLimiters(1, 2)
	if _, spent := l.spent("a"); spent {
		t.Fatal("an unknown key has not spent anything")
	}
	for i := 0; i < 2; i++ {
		if _, ok := l.take("a"); !ok {
			t.Fatalf("take %d within the burst refused", i)
		}
	}
	retry, ok := l.take("a")
	if ok || retry <= 0 || retry > time.Second {
		t.Fatalf("past the burst: ok %v, retry %v", ok, retry)
	}
	if _, spent := l.spent("a"); !spent {
		t.Fatal("spent must see the empty bucket")
	}
	if _, ok := l.take("b"); !ok {
		t.Fatal("keys have buckets of their own")
	}
	l.sweepIdle(time.Now().Add(2 * idleAfter))
	if n := l.count.Load(); n != 0 {
		t.Fatalf("%d idle buckets kept after a sweep", n)
	}
}

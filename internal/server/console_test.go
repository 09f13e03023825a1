package server_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"records/internal/console"
	"records/internal/migrate"
)

// The console is served without a token, under its Content-Security-Policy:
// a page revalidated on each load, naming its assets by hash, and the
// assets cached for good with their types.
func TestConsoleIsServed(t *testing.T) {
	h := newHarness(t, migrate.SQLite, testConfig())
	page := h.callAs("", "GET", "/console", "").want(200)
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-cache",
		"Content-Security-Policy": console.Policy,
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := page.Header.Get(name); got != want {
			t.Errorf("page %s: %q, want %q", name, got, want)
		}
	}
	if strings.Contains(string(page.Body), "<script>") || strings.Contains(string(page.Body), "<style") || strings.Contains(string(page.Body), "style=") {
		t.Errorf("the page has an inline script or style:\n%s", page.Body)
	}
	h.callAs("", "GET", "/console", "", "If-None-Match", page.Header.Get("ETag")).want(http.StatusNotModified)
	assets := regexp.MustCompile(`/console/assets/([A-Za-z0-9_.-]+\.(js|css))`).FindAllStringSubmatch(string(page.Body), -1)
	if len(assets) != 2 {
		t.Fatalf("the page names %d assets, want a script and a stylesheet:\n%s", len(assets), page.Body)
	}
	for _, a := range assets {
		r := h.callAs("", "GET", a[0], "").want(200)
		want := map[string]string{"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}[a[2]]
		if got := r.Header.Get("Content-Type"); got != want {
			t.Errorf("%s: Content-Type %q, want %q", a[1], got, want)
		}
		if got := r.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", a[1], got)
		}
		if r.Header.Get("Content-Security-Policy") != console.Policy || len(r.Body) < 1000 {
			t.Errorf("%s: %d bytes, CSP %q", a[1], len(r.Body), r.Header.Get("Content-Security-Policy"))
		}
	}
	h.callAs("", "GET", "/console/assets/nothing.js", "").problem(404, "not_found")
	h.unchecked = true // a redirect, not a route of the document
	for _, method := range []string{"GET", "HEAD"} {
		r := h.callAs("", method, "/console/", "").want(301)
		if r.Header.Get("Location") != "/console" || r.Header.Get("Content-Security-Policy") != console.Policy || r.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("%s /console/: %v", method, r.Header)
		}
	}
	h.callAs("", "HEAD", "/docs/", "").want(301)
}

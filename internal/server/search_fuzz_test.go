package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"records/internal/dbtest"
)

// FuzzSearch sends any q — unbalanced quotes, FTS5's and tsquery's own
// syntax, punctuation, any Unicode — to a search of returns on both
// databases, with and without a rank order and a cursor's count: each is
// answered 200, or 400 naming q, never 5xx: no input reaches either
// engine as syntax of its own.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{
		`refund`, `"wrong item`, `NEAR(refund item)`, `refund*`, `^refund`, `description:refund`,
		`{description issue}:refund`, `refund AND NOT item`, `a & b | !c <-> d:*`, `"" "" -"" - -- or or`,
		strings.Repeat(`!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`, 9)[:256], `crème brûlée Ωμέγα 東京 🙂`,
		`-refund`, `refund or`, `or refund`, `"a" NOT "b"`, `'quoted'`, "tab\tnew\nline", `\"escaped\"`,
		`SN-1234 a.b@example.com http://x.y/z?q=1`, `e\u0301`, `col:"x" + NEAR("a" "b", 2)`,
	} {
		f.Add(q, false)
		f.Add(q, true)
	}
	var hs []*harness
	for _, d := range dbtest.Dialects {
		h := newHarness(f, d, testConfig())
		seedSearch(h)
		h.unchecked = true
		hs = append(hs, h)
	}
	f.Fuzz(func(t *testing.T, q string, byID bool) {
		v := url.Values{"q": {q}, "count": {"exact"}, "limit": {"2"}}
		if byID {
			v.Set("order_by", "-id")
		}
		for _, h := range hs {
			req := httptest.NewRequest(http.MethodGet, "http://records.test/v1/returns?"+v.Encode(), nil)
			req.Header.Set("Authorization", "Bearer "+h.token)
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, req)
			switch {
			case w.Code == http.StatusOK:
			case w.Code == http.StatusBadRequest && strings.Contains(w.Body.String(), `"member":"q"`):
			default:
				t.Fatalf("q=%q on %s: %d %s", q, h.db.Dialect, w.Code, w.Body)
			}
		}
	})
}

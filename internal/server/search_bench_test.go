package server_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"records/internal/dbtest"
)

// searchBenchRows are the returns the search and aggregate benchmarks
// read: far fewer than a production table, so that a run takes a minute.
const searchBenchRows = 20000

// BenchmarkSearch reads a page of 100 returns, in process, on both
// databases: a plain list, a one-word search of a rare word (in 1 return
// in 1,000) and of a common one (in every return), ordered by rank; and
// an aggregate counting the returns by status.
func BenchmarkSearch(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) { benchmarkSearch(b, d) })
	}
}

func benchmarkSearch(b *testing.B, dialect string) {
	h := newHarness(b, dialect, testConfig())
	h.unchecked = true
	statuses := []string{"open", "closed", "pending", "received", "refunded"}
	for start := 0; start < searchBenchRows; start += 1000 {
		var body strings.Builder
		body.WriteByte('[')
		for i := start; i < start+1000; i++ {
			if i > start {
				body.WriteByte(',')
			}
			word := "ordinary"
			if i%1000 == 7 {
				word = "zanzibar"
			}
			fmt.Fprintf(&body, `{"id":"r%06d","status":%q,"description":"customer returned a %s widget, refund asked","rma":"RMA-%d","customerEmail":"c%d@example.com"}`,
				i, statuses[i%len(statuses)], word, i, i)
		}
		body.WriteByte(']')
		h.call("POST", "/v1/returns", body.String()).want(201)
	}
	for _, c := range []struct{ name, query string }{
		{"list-100", "/v1/returns?limit=100"},
		{"search-rare", "/v1/returns?limit=100&q=zanzibar"},
		{"search-common", "/v1/returns?limit=100&q=widget"},
		{"aggregate-count-by-status", "/v1/returns/aggregate?group_by=status"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				req := httptest.NewRequest("GET", c.query, nil)
				req.Header.Set("Authorization", "Bearer "+h.token)
				w := httptest.NewRecorder()
				h.srv.Handler().ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
	}
}

package server_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"records/internal/dbtest"
)

// BenchmarkExpand reads a page of 100 returns, plain and with their five
// line items each expanded, in process, on both databases.
func BenchmarkExpand(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) { benchmarkExpand(b, d) })
	}
}

func benchmarkExpand(b *testing.B, dialect string) {
	h := newHarness(b, dialect, testConfig())
	h.unchecked = true
	var rb, lb strings.Builder
	rb.WriteByte('[')
	lb.WriteByte('[')
	for i := range 100 {
		if i > 0 {
			rb.WriteByte(',')
		}
		fmt.Fprintf(&rb, `{"id":"r%03d","status":"open","description":"a return of some length","customerEmail":"c%d@example.com"}`, i, i)
		for j := range 5 {
			if i > 0 || j > 0 {
				lb.WriteByte(',')
			}
			fmt.Fprintf(&lb, `{"id":"r%03d-%d","return_id":"r%03d","sku":"SKU-%d","price":"12.50","name":"Widget"}`, i, j, i, j)
		}
	}
	rb.WriteByte(']')
	lb.WriteByte(']')
	h.call("POST", "/v1/returns", rb.String()).want(201)
	h.call("POST", "/v1/return_line_items", lb.String()).want(201)
	for _, q := range []string{"plain", "expand=return_line_items"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				req := httptest.NewRequest("GET", "/v1/returns?limit=100&"+strings.TrimPrefix(q, "plain"), nil)
				req.Header.Set("Authorization", "Bearer "+h.token)
				w := httptest.NewRecorder()
				h.srv.Handler().ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

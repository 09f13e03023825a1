package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lib/pq"

	"records/bench/baseline"
	"records/internal/dbtest"
)

// BenchmarkExpand reads a page of 100 returns, plain and with their five
// line items each expanded, in process, on both databases.
// children-floor is what the database and its driver alone spend on the
// expansion's rows: the same 500 line items read by the service's statement
// with database/sql and scanned into strings, nothing encoded, no HTTP —
// the part of an expanded page no code of the service's can go below.
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
	returns := make([]string, 100)
	for i := range 100 {
		if i > 0 {
			rb.WriteByte(',')
		}
		returns[i] = fmt.Sprintf("r%03d", i)
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
	b.Run("children-floor", func(b *testing.B) {
		pool, postgres, err := baseline.Open(dbtest.URLOf(b, h.db))
		if err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		text, args := childrenFloor(postgres, returns)
		stmt, err := pool.Prepare(text)
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if n := readFloor(b, stmt, args); n != 500 {
				b.Fatalf("%d line items, want 500", n)
			}
		}
	})
}

// childrenFloor is the statement the service reads the line items of
// returns with, with its arguments: on SQLite along the index (team_id,
// return_id, id), on PostgreSQL each return's by a lateral join.
func childrenFloor(postgres bool, returns []string) (string, []any) {
	const cols = `id, version, amount, condition, flat_rate_shipping, name, price, return_id, serial_number, sku, tax_refunded`
	if postgres {
		return `SELECT c.* FROM unnest($1::text[]) AS p(id) CROSS JOIN LATERAL (SELECT ` + cols +
			` FROM return_line_items WHERE team_id = $2 AND return_id = p.id ORDER BY id LIMIT 1000) AS c`, []any{pq.StringArray(returns), 1}
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(returns)), ", ")
	args := []any{1}
	for _, id := range returns {
		args = append(args, id)
	}
	return `SELECT ` + cols + ` FROM return_line_items WHERE team_id = ? AND return_id IN (` + marks + `) ORDER BY return_id, id`, args
}

// readFloor reads the rows of stmt into strings and tells how many.
func readFloor(b *testing.B, stmt *sql.Stmt, args []any) int {
	rows, err := stmt.QueryContext(context.Background(), args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var (
		id                                                                 string
		version                                                            int64
		amount, condition, shipping, name, price, parent, serial, sku, tax sql.NullString
	)
	n := 0
	for rows.Next() {
		if err := rows.Scan(&id, &version, &amount, &condition, &shipping, &name, &price, &parent, &serial, &sku, &tax); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

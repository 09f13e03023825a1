package baseline_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"records/bench/baseline"
	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/server"
)

// The service's hot paths — GET by id and a list of 100 — beside the
// hand-written baseline, in process, on one seeded database. The service
// runs as in production (token cache on, log lines encoded then dropped)
// but for the rate limit. bench/load.sh measures the same over the network.
//
//	go test ./bench/baseline -run '^$' -bench . -benchmem

type pair struct {
	service, baseline http.Handler
	token             string
	// pool and postgres are the baseline's database, for what the
	// database alone costs (BenchmarkBulkCreate's sql-floor).
	pool     *sql.DB
	postgres bool
}

func setup(b *testing.B, dialect string) pair {
	b.Helper()
	ctx := context.Background()
	url := dbtest.URL(b, dialect)
	database, err := db.Open(ctx, db.Config{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { database.Close() })
	if _, err := database.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	_, token, err := auth.NewStore(database, 0).Create(ctx, "bench", auth.Write, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e9, 1e9
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	p := pair{service: srv.Handler(), token: token}
	for i := 0; i < 1000; i++ {
		body := fmt.Sprintf(`{"id":"cust-%d","sso_id":"sso-%d","email":"customer%d@example.com","firstName":"First %d","lastName":"Last %d","phone":"+1 555 0100 %d","payment_customer_id":"pay_%d","timestamp":"2026-11-21T10:00:00Z","activationDate":"2026-01-01"}`, i, i, i, i, i, i, i)
		req := httptest.NewRequest("POST", "/v1/customers", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		p.service.ServeHTTP(w, req)
		if w.Code != http.StatusCreated {
			b.Fatalf("seeding: %d %s", w.Code, w.Body)
		}
	}
	pool, postgres, err := baseline.Open(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Close() })
	p.pool, p.postgres = pool, postgres
	if p.baseline, err = baseline.Handler(pool, postgres, 1); err != nil {
		b.Fatal(err)
	}
	return p
}

func run(b *testing.B, h http.Handler, path, token string) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// A server's request context can be cancelled (the connection may
		// close); database/sql and the drivers treat such contexts
		// differently, so the benchmark gives both handlers one.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, "GET", path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", path, w.Code, w.Body)
			}
		}
	})
}

func compare(b *testing.B, servicePath, baselinePath string) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			p := setup(b, d)
			b.Run("service", func(b *testing.B) { run(b, p.service, servicePath, p.token) })
			b.Run("baseline", func(b *testing.B) { run(b, p.baseline, baselinePath, "") })
		})
	}
}

func BenchmarkGetByID(b *testing.B) {
	compare(b, "/v1/customers/cust-500", "/customers/cust-500")
}

func BenchmarkList100(b *testing.B) {
	compare(b, "/v1/customers?limit=100", "/customers?limit=100")
}

// A bulk create of 1,000 customers in one request against 1,000 single
// creates, one after another: the time per 1,000 records, in process and
// as a client sees it — over HTTP on loopback, one keep-alive connection,
// each single create a round trip of its own. sql-floor/bulk-1000 is what
// the database alone spends on the same rows: one hand-written multi-row
// INSERT … RETURNING in a transaction, the tables' event triggers firing
// as for the service, no HTTP, no JSON. No service reaches a ratio of
// single creates to bulk above single-x1000 ÷ sql-floor.
func BenchmarkBulkCreate(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			p := setup(b, d)
			inProcess := func(body string) {
				req := httptest.NewRequest("POST", "/v1/customers", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+p.token)
				w := httptest.NewRecorder()
				p.service.ServeHTTP(w, req)
				if w.Code != http.StatusCreated {
					b.Fatalf("%d %.200s", w.Code, w.Body)
				}
			}
			srv := httptest.NewServer(p.service)
			defer srv.Close()
			client := srv.Client()
			overHTTP := func(body string) {
				req, _ := http.NewRequest("POST", srv.URL+"/v1/customers", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+p.token)
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				answer, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					b.Fatalf("%d %.200s", res.StatusCode, answer)
				}
			}
			one := `{"email":"bulk@example.com","firstName":"Bulk","lastName":"Customer","phone":"+1 555 0100"}`
			bulk := "[" + strings.TrimSuffix(strings.Repeat(one+",", 1000), ",") + "]"
			for _, way := range []struct {
				name string
				post func(string)
			}{{"in-process", inProcess}, {"http", overHTTP}} {
				b.Run(way.name+"/bulk-1000", func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						way.post(bulk)
					}
				})
				b.Run(way.name+"/single-x1000", func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						for j := 0; j < 1000; j++ {
							way.post(one)
						}
					}
				})
			}
			b.Run("sql-floor/bulk-1000", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := baseline.BulkInsertCustomers(context.Background(), p.pool, p.postgres, 1, 1000); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// Writes of one record, the service beside the baseline, in process (one
// writer at a time on SQLite either way): what each spends on the same
// statement and its event — a create of a customer, a PATCH of one of the
// 1,000 seeded, an upsert of a line item to ids neither side has at its
// start (each side its own). bench/writes.sh measures the same over the
// network.
func BenchmarkWrites(b *testing.B) {
	type write struct {
		name, method, body string
		path               func(service bool, i int) string
		status             []int
	}
	writes := []write{
		{"create", "POST", `{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}`,
			func(service bool, _ int) string {
				if service {
					return "/v1/customers"
				}
				return "/customers"
			}, []int{http.StatusCreated}},
		{"patch", "PATCH", `{"email":"changed@example.com","firstName":"Changed"}`,
			func(service bool, i int) string {
				if service {
					return fmt.Sprintf("/v1/customers/cust-%d", i%1000)
				}
				return fmt.Sprintf("/customers/cust-%d", i%1000)
			}, []int{http.StatusOK}},
		{"upsert", "PUT", `{"sku":"SKU-1","price":"12.50","name":"Widget"}`,
			func(service bool, i int) string {
				if service {
					return fmt.Sprintf("/v1/return_line_items/s-%d", i%20000)
				}
				return fmt.Sprintf("/return_line_items/b-%d", i%20000)
			}, []int{http.StatusCreated, http.StatusOK}},
	}
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			p := setup(b, d)
			for _, wr := range writes {
				run := func(b *testing.B, h http.Handler, service bool, token, keys string) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						req := httptest.NewRequest(wr.method, wr.path(service, i), strings.NewReader(wr.body))
						req.Header.Set("Content-Type", "application/json")
						if token != "" {
							req.Header.Set("Authorization", "Bearer "+token)
						}
						if keys != "" {
							req.Header.Set("Idempotency-Key", keys+"-"+strconv.Itoa(i))
						}
						w := httptest.NewRecorder()
						h.ServeHTTP(w, req)
						if !slices.Contains(wr.status, w.Code) {
							b.Fatalf("%s %s: %d %.200s", wr.method, req.URL, w.Code, w.Body)
						}
					}
				}
				b.Run(wr.name+"/service", func(b *testing.B) { run(b, p.service, true, p.token, "") })
				b.Run(wr.name+"/baseline", func(b *testing.B) { run(b, p.baseline, false, "", "") })
				if wr.name == "create" {
					// What an Idempotency-Key costs a create: a key of its own
					// per request, kept with the record.
					b.Run(wr.name+"/service-keyed", func(b *testing.B) {
						run(b, p.service, true, p.token, "bench-"+strconv.FormatInt(time.Now().UnixNano(), 36))
					})
				}
			}
		})
	}
}

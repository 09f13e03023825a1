package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/edge"
	"records/internal/migrate"
	"records/internal/server"
)

// concrete turns a route pattern into a path a request can take.
func concrete(path string) string { return strings.ReplaceAll(path, ":id", "some-id") }

// protected lists the registered routes that need a token, from the
// router itself rather than a hand-kept list.
func protected(h *harness) []edge.Route {
	var out []edge.Route
	for _, r := range h.srv.Routes() {
		if !r.Public {
			out = append(out, r)
		}
	}
	return out
}

func TestEveryRouteNeedsAValidToken(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		store := auth.NewStore(h.db, 0)
		revokedTok, revoked, _ := store.Create(ctx, "revoked", auth.Write, "", 0)
		if err := store.Revoke(ctx, revokedTok.ID); err != nil {
			t.Fatal(err)
		}
		expiredTok, expired, _ := store.Create(ctx, "expired", auth.Write, "", time.Hour)
		dbtest.Ent(h.db).APIToken.UpdateOneID(expiredTok.ID).SetExpiresAt(time.Now().Add(-time.Minute)).ExecX(ctx)

		headers := map[string]string{
			"no header":           "",
			"empty bearer":        "Bearer ",
			"unknown scheme":      "Basic dXNlcjpwYXNz",
			"no scheme":           h.token,
			"two words":           "Bearer a b",
			"unknown token":       "Bearer rk_not-a-real-token",
			"revoked token":       "Bearer " + revoked,
			"expired token":       "Token " + expired,
			"right token, typo'd": "Bearer " + h.token + "x",
		}
		routes := protected(h)
		if len(routes) < 100 {
			t.Fatalf("only %d protected routes registered", len(routes))
		}
		peer := 0
		for _, rt := range routes {
			for what, header := range headers {
				// Each from its own address: the brake on failed
				// authentications is tested on its own.
				peer++
				addr := fmt.Sprintf("10.%d.%d.%d:4000", peer>>16&255, peer>>8&255, peer&255)
				r := h.callAs("", rt.Method, concrete(rt.Path), `{}`, "Authorization", header, "RemoteAddr", addr)
				r.problem(401, "unauthenticated")
				if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="records"` {
					t.Fatalf("%s %s with %s: WWW-Authenticate %q", rt.Method, rt.Path, what, got)
				}
			}
		}
		// The scheme is case-insensitive, and both spellings work.
		for _, scheme := range []string{"Bearer", "bearer", "Token", "TOKEN"} {
			h.callAs("", "GET", "/v1/customers", "", "Authorization", scheme+" "+h.token).want(200)
		}
		// The documents and health checks need none.
		h.callAs("", "GET", "/healthz", "").want(200)
		h.callAs("", "GET", "/readyz", "").want(200)
	})
}

// Two teams, every kind of operation: nothing of one team is read, changed,
// deleted, named as a parent or even seen to exist by the other — but for
// ids, which are unique across teams (a taken id is a conflict).
func TestTeamsDoNotSeeEachOther(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		other := h.newToken("other team", auth.Write, "other")
		as := func(method, path, body string) *response { return h.callAs(other, method, path, body) }

		// Team 1's records.
		h.call("POST", "/v1/customers", `{"id":"c-1","sso_id":"sso-1","email":"mine@example.com"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"u-1","username":"ann"}`).want(201)
		h.call("PUT", "/v1/returns/", `{"id":"r-1","status":"closed"}`).want(201)
		h.call("PUT", "/v1/return_line_items/li-1", `{"return_id":"r-1"}`).want(201)
		h.call("POST", "/v1/packing_lists", `{"id":"pl-1"}`).want(201)
		h.call("POST", "/v1/cases", `{"id":"case-1"}`).want(201)
		h.call("POST", "/v1/channel_threads", `{"id":"t-1","case_id":"case-1"}`).want(201)
		h.call("POST", "/v1/warranties", `{"id":"w-1"}`).want(201)
		h.call("POST", "/v1/work_orders", `{"id":"wo-1","work_order_line_items":[{"id":"woli-1"}]}`).want(201)
		h.call("PUT", "/v1/purchase_orders/po-1", `{"total":"10"}`).want(201)
		h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme"}`).want(201)

		// list: nothing of team 1, with or without narrowing and filters.
		for path, member := range map[string]string{
			"/v1/customers": "customers", "/v1/users/": "users", "/v1/users/u-1": "users",
			"/v1/customer/list?sso_id=sso-1": "customers", "/v1/work_order_line_items": "work_order_line_items",
			"/v1/suppliers": "suppliers", "/v1/packing_list/pl-1": "packing_lists",
		} {
			if l := as("GET", path, "").want(200).list(member); len(l) != 0 {
				t.Fatalf("team 2 lists team 1's records at %s: %v", path, l)
			}
		}
		// get and get-or-create with an id: not found, exactly as a missing one.
		for _, path := range []string{"/v1/customers/c-1", "/v1/packing_lists/pl-1", "/v1/work_orders/wo-1", "/v1/suppliers/s-1"} {
			as("GET", path, "").problem(404, "not_found")
		}
		as("GET", "/v1/return_line_item", `{"id":"li-1"}`).problem(404, "not_found")
		// patch, action and deletes: not found, and nothing changes.
		as("PATCH", "/v1/customers/c-1", `{"email":"stolen@example.com"}`).problem(404, "not_found")
		as("POST", "/v1/return/r-1/reopen", "").problem(404, "not_found")
		as("DELETE", "/v1/customers/c-1", "").problem(404, "not_found")
		as("DELETE", "/v1/warranty", `{"warranty_id":"w-1"}`).problem(404, "not_found")
		as("DELETE", "/v1/channel_thread", `{"case_id":"case-1"}`).problem(404, "not_found")
		as("DELETE", "/v1/channel_thread", `{"id":"t-1"}`).problem(404, "not_found")
		// upsert and create with a taken id: a conflict, and nothing changes.
		as("PUT", "/v1/purchase_orders/po-1", `{"total":"0"}`).problem(409, "conflict", "id")
		as("PUT", "/v1/suppliers/s-1", `{"name":"Hijack"}`).problem(409, "conflict", "id")
		as("POST", "/v1/customers", `{"id":"c-1"}`).problem(409, "conflict", "id")
		// A child may not name another team's parent.
		as("PUT", "/v1/return_line_items/li-9", `{"return_id":"r-1"}`).problem(400, "invalid_request", "return_id")
		as("POST", "/v1/channel_threads", `{"case_id":"case-1"}`).problem(400, "invalid_request", "case_id")
		// Team 2's own work is its own; a username can repeat across teams.
		as("POST", "/v1/users", `{"id":"u-2","username":"ann"}`).want(201)
		if got := as("GET", "/v1/suppliers", "").want(200).list("suppliers"); len(got) != 0 {
			t.Fatalf("suppliers: %v", got)
		}
		as("PUT", "/v1/suppliers/s-2", `{"name":"Mine"}`).want(201).at("user_group", "team_id")

		// Team 1's records are as they were.
		if got := h.call("GET", "/v1/customers/c-1", "").want(200).at("email"); got != "mine@example.com" {
			t.Fatalf("team 1's customer changed: %v", got)
		}
		if got := h.call("GET", "/v1/returns/r-1", "").want(200).at("status"); got != "closed" {
			t.Fatalf("team 1's return changed: %v", got)
		}
		if got := h.call("GET", "/v1/purchase_orders/po-1", "").want(200).at("total"); got != "10" {
			t.Fatalf("team 1's purchase order changed: %v", got)
		}
		if got := h.call("GET", "/v1/suppliers/s-1", "").want(200).at("name"); got != "Acme" {
			t.Fatalf("team 1's supplier changed: %v", got)
		}
		for _, path := range []string{"/v1/warranties/w-1", "/v1/channel_threads/t-1", "/v1/work_order_line_items/woli-1"} {
			h.call("GET", path, "").want(200)
		}
		if l := h.call("GET", "/v1/users", "").want(200).list("users"); len(l) != 1 {
			t.Fatalf("team 1 sees team 2's user: %v", l)
		}
	})
}

func TestReadScopeCannotWrite(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		reader := h.newToken("reader", auth.Read, "")
		h.call("POST", "/v1/customers", `{"id":"c-1"}`).want(201)
		h.call("PUT", "/v1/returns/", `{"id":"r-1"}`).want(201)
		h.call("POST", "/v1/packing_lists", `{"id":"pl-1"}`).want(201)
		as := func(method, path, body string, headers ...string) *response {
			return h.callAs(reader, method, path, body, headers...)
		}
		// Every kind that writes answers 403, before the body is judged.
		as("POST", "/v1/customers", `{"email":"x"}`).problem(403, "forbidden")
		as("PATCH", "/v1/customers/c-1", `{"email":"x"}`).problem(403, "forbidden")
		as("PUT", "/v1/purchase_orders/po-1", `{"total":"1"}`).problem(403, "forbidden")
		as("POST", "/v1/return/r-1/reopen", "").problem(403, "forbidden")
		as("DELETE", "/v1/customers/c-1", "").problem(403, "forbidden")
		as("POST", "/v1/customers", `not json`, "Content-Type", "text/plain").problem(403, "forbidden")
		// A get-or-create reads with an id, and refuses to create without.
		as("GET", "/v1/packing_lists/pl-1", "").want(200)
		as("GET", "/v1/packing_lists/", `{"number":"N"}`).problem(403, "forbidden")
		// …after the body is judged: 400 comes first.
		as("GET", "/v1/packing_lists/", `{"numbr":"N"}`).problem(400, "invalid_request", "numbr")
		// Reads work.
		as("GET", "/v1/customers", "").want(200)
		as("GET", "/v1/customers/c-1", "").want(200)
		// Nothing was written.
		h.call("GET", "/v1/customers/c-1", "").want(200)
		if l := h.call("GET", "/v1/packing_lists", "").want(200).list("packing_lists"); len(l) != 1 {
			t.Fatalf("a read token created a packing list: %v", l)
		}
	})
}

func TestRateLimit(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.RateLimit, cfg.RateBurst = 1, 3
			h := newHarness(t, d, cfg)
			for i := 0; i < 3; i++ {
				h.call("GET", "/v1/customers", "").want(200)
			}
			r := h.call("GET", "/v1/customers", "").problem(429, "rate_limited")
			if r.Header.Get("Retry-After") != "1" {
				t.Fatalf("Retry-After: %q", r.Header.Get("Retry-After"))
			}
			// The limit is the token's: another token is not limited.
			other := h.newToken("other", auth.Write, "")
			h.callAs(other, "GET", "/v1/customers", "").want(200)
		})
	}
}

// Guessing tokens is braked per client address: past a burst of failures,
// the address is answered 429 without a database lookup.
func TestFailedAuthenticationsAreBraked(t *testing.T) {
	h := newHarness(t, migrate.SQLite, testConfig())
	var last *response
	for i := 0; i < 40; i++ {
		last = h.callAs("rk_guess", "GET", "/v1/customers", "")
	}
	last.problem(429, "rate_limited")
	if last.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

// A proxy in front of PostgreSQL, to cut the database off from a running
// server as a network partition would.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

func TestDatabaseDownIs503(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		dbtest.RequirePostgres(t)
		u := dbtest.URL(t, migrate.Postgres)
		host := "127.0.0.1:5432"
		p := newProxy(t, host)
		database, err := db.Open(context.Background(), db.Config{URL: strings.Replace(u, host, p.ln.Addr().String(), 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { database.Close() })
		if _, err := database.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		h := &harness{t: t, db: database}
		h.srv = mustServer(t, testConfig(), database)
		h.token = h.newToken("t", auth.Write, "")
		h.call("GET", "/v1/customers", "").want(200)
		p.cut()
		r := h.call("GET", "/v1/customers", "").problem(503, "unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
		noLeak(t, r)
		h.callAs("", "GET", "/readyz", "").problem(503, "unavailable")
		h.callAs("", "GET", "/healthz", "").want(200)
	})
	t.Run("sqlite", func(t *testing.T) {
		// Another process holds SQLite's write lock past the busy timeout.
		u := dbtest.URL(t, migrate.SQLite)
		database, err := db.Open(context.Background(), db.Config{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { database.Close() })
		database.Migrate(context.Background())
		h := &harness{t: t, db: database}
		h.srv = mustServer(t, testConfig(), database)
		h.token = h.newToken("t", auth.Write, "")
		holder, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(u, "sqlite:")+"?_pragma=busy_timeout(0)")
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		conn, _ := holder.Conn(context.Background())
		if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(context.Background(), "ROLLBACK")
		r := h.call("POST", "/v1/customers", `{"email":"x"}`).problem(503, "unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
		noLeak(t, r)
	})
}

func mustServer(t testing.TB, cfg server.Config, database *db.DB) *server.Server {
	t.Helper()
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

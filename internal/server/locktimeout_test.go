package server_test

import (
	"context"
	"testing"
	"time"

	"records/internal/dbtest"
)

// A write waiting on a lock another transaction holds — PostgreSQL's row
// lock, SQLite's write lock — is interrupted at the request's deadline:
// 503, nothing written.
func TestWritesWaitingOnALockEndAtTheDeadline(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			writesWaitingOnALock(t, d)
		})
	}
}

func writesWaitingOnALock(t *testing.T, dialect string) {
	cfg := testConfig()
	cfg.RequestTimeout = time.Second
	h := newHarness(t, dialect, cfg)
	h.call("POST", "/v1/customers", `{"id":"c1"}`).want(201)
	h.call("POST", "/v1/customers", `{"id":"c2"}`).want(201)
	tx, err := h.db.SQL.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE customers SET email = email WHERE id IN ('c1', 'c2')`); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() { // long after the writes' deadlines
		time.Sleep(10 * time.Second)
		tx.Rollback()
		close(released)
	}()
	for _, w := range []struct{ method, path, body string }{
		{"PATCH", "/v1/customers/c1", `{"email":"x@example.com"}`},
		{"DELETE", "/v1/customers/c2", ""},
	} {
		h.call(w.method, w.path, w.body).problem(503, "unavailable")
	}
	<-released
	if r := h.call("GET", "/v1/customers/c1", "").want(200); r.obj()["email"] != nil {
		t.Fatalf("a write answered 503 was written: %s", r.Body)
	}
	h.call("GET", "/v1/customers/c2", "").want(200)
}

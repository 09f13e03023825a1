package db_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lib/pq"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/migrate"
)

// The SQLSTATEs of a lost connection or of a server no longer the primary,
// and the driver's own word for a broken connection, are connection loss,
// which is also unavailability; other operator interventions are only
// unavailability.
func TestConnectionLossIsClassified(t *testing.T) {
	for _, code := range []string{"08000", "08006", "08P01", "57P01", "57P02", "57P03", "25006"} {
		err := db.Classify(context.Background(), &pq.Error{Code: pq.ErrorCode(code)})
		if !errors.Is(err, db.ErrConnectionLost) || !errors.Is(err, db.ErrUnavailable) {
			t.Errorf("SQLSTATE %s: %v, want connection loss", code, err)
		}
	}
	for _, err := range []error{sqldriver.ErrBadConn, sql.ErrConnDone} {
		if got := db.Classify(context.Background(), err); !errors.Is(got, db.ErrConnectionLost) {
			t.Errorf("%v: want connection loss", err)
		}
	}
	for _, code := range []string{"57P04", "53300", "40001"} {
		err := db.Classify(context.Background(), &pq.Error{Code: pq.ErrorCode(code)})
		if errors.Is(err, db.ErrConnectionLost) || !errors.Is(err, db.ErrUnavailable) {
			t.Errorf("SQLSTATE %s: %v, want unavailable and not a loss", code, err)
		}
	}
}

// lossDatabase opens a fresh migrated PostgreSQL database whose
// connections carry an application name of their own, so that the test
// can end them from outside, and warms count of them into the pool.
func lossDatabase(t *testing.T, extra string, count int) (*db.DB, string, *sql.DB) {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	app := "loss_" + hex.EncodeToString(b)
	url := dbtest.URL(t, migrate.Postgres)
	first, err := db.Open(context.Background(), db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	_, err = first.Migrate(context.Background())
	first.Close()
	if err != nil {
		t.Fatal(err)
	}
	database, err := db.Open(context.Background(), db.Config{URL: url + "&application_name=" + app + extra, MaxConns: count})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { database.Close() })
	admin, err := sql.Open("postgres", dbtest.PostgresURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	// Hold count connections at once, so that the pool keeps that many.
	var conns []*sql.Conn
	for range count {
		c, err := database.SQL.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.PingContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	return database, app, admin
}

// A pool's connection ended by the server (as a crash or a failover ends
// it) under a statement prepared on it: a read is run again on a new
// connection and succeeds; a write is not run again — it fails as
// connection loss, for its caller to answer 503 — and the connection ended
// is dropped. (One connection, so that each statement meets the ended one:
// database/sql itself prepares again elsewhere when preparing fails.)
func TestLostConnectionsAreDroppedAndReadsTriedAgain(t *testing.T) {
	dbtest.RequirePostgres(t)
	database, app, admin := lossDatabase(t, "", 1)
	ctx := context.Background()
	terminate := func() {
		t.Helper()
		var n int
		if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil || n != 1 {
			t.Fatalf("ended %d connections (%v), want 1", n, err)
		}
		time.Sleep(100 * time.Millisecond) // the FATAL notice reaches the client
	}
	read := func() error {
		var one int
		return database.Each(ctx, 1, `SELECT 1`, nil, func(r *sql.Rows) error { return r.Scan(&one) })
	}
	write := func(team int) error {
		_, err := database.Exec(ctx, `INSERT INTO teams (id, name, created_at) VALUES (?, ?, now())`, team, fmt.Sprint("team", team))
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if err := write(7); err != nil {
		t.Fatal(err)
	}

	terminate()
	if err := read(); err != nil {
		t.Fatalf("a read after its connection ended: %v (want it run again on a new connection)", err)
	}
	if err := write(9); err != nil { // the write, prepared on the new connection
		t.Fatal(err)
	}

	terminate()
	err := write(8)
	if !errors.Is(err, db.ErrConnectionLost) || !errors.Is(err, db.ErrUnavailable) {
		t.Fatalf("a write on an ended connection: %v, want connection loss", err)
	}
	time.Sleep(50 * time.Millisecond)
	if open := database.SQL.Stats().OpenConnections; open != 0 {
		t.Errorf("%d connections open after the loss, want the ended one dropped", open)
	}
	var exists bool
	if err := database.Each(ctx, 1, `SELECT EXISTS (SELECT 1 FROM teams WHERE id = 8)`, nil, func(r *sql.Rows) error { return r.Scan(&exists) }); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Error("the write that failed was made: database/sql sent it again")
	}
}

// A server that is no longer the primary answers writes 25006: the
// connection is dropped, not pooled again for the next write.
func TestReadOnlyConnectionsAreDropped(t *testing.T) {
	dbtest.RequirePostgres(t)
	database, _, _ := lossDatabase(t, "&options=-c%20default_transaction_read_only%3Don", 2)
	_, err := database.Exec(context.Background(), `INSERT INTO teams (id, name, created_at) VALUES (7, 'seven', now())`)
	if !errors.Is(err, db.ErrConnectionLost) {
		t.Fatalf("a write on a read-only server: %v, want connection loss", err)
	}
	time.Sleep(50 * time.Millisecond)
	if idle := database.SQL.Stats().Idle; idle != 0 {
		t.Errorf("%d idle connections to the read-only server kept, want none", idle)
	}
}

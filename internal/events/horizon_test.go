package events_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"
	"time"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/servertest"
)

// Only transactions of the service's own database hold the event log back:
// a transaction left open in another database of the same server — idle
// in a session, or prepared and orphaned — holds back neither the log, nor
// the stream, nor the gauges; one of the service's database does, until it
// ends. On a PostgreSQL of the test's own, so that nothing else runs there.
func TestOnlyTheServicesDatabaseHoldsTheLogBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	cluster := dbtest.NewCluster(t)
	database, err := db.Open(context.Background(), db.Config{URL: cluster.URL("records")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { database.Close() })
	if _, err := database.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := servertest.NewOn(t, database, servertest.Config(), &servertest.Log{})
	h.Srv.Start()
	t.Cleanup(func() { h.Srv.Close() })
	ts := servertest.Serve(t, h.Srv)
	elsewhere := openPool(t, cluster.URL("elsewhere"))
	ctx := context.Background()

	// Another database: a session idle in a transaction that took an id,
	// and a prepared transaction nobody will finish.
	idle := holdTransaction(t, elsewhere)
	defer idle.Rollback()
	if _, err := elsewhere.ExecContext(ctx, `BEGIN; SELECT pg_current_xact_id(); PREPARE TRANSACTION 'orphan'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = elsewhere.ExecContext(ctx, `ROLLBACK PREPARED 'orphan'`) })
	time.Sleep(1100 * time.Millisecond) // open a second before what follows

	stream, stop := servertest.OpenStream(t, ts.URL, h.Token)
	defer stop()
	f := follow(h)
	h.Call("POST", "/v1/customers", `{"id":"c1"}`).Want(201)
	if got := types(f.pollFor(1)); len(got) != 1 || got[0] != "customers.created c1" {
		t.Fatalf("with transactions open in another database the log answers %v, want the create", got)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(h.Logs.String())
		}
	})
	if e := servertest.NextEvent(t, stream); !bytes.Contains([]byte(e.Data), []byte(`"id":"c1"`)) {
		t.Fatalf("the stream answered %s, want the create of c1\n%s", e.Data, h.Logs)
	}
	page := string(h.CallAs("", "GET", "/metrics", "").Want(200).Body)
	for _, g := range []string{"records_events_log_held_back_transactions", "records_events_log_oldest_transaction_seconds"} {
		if v := servertest.GaugeValue(t, page, g); v != 0 {
			t.Errorf("%s is %v with only other databases' transactions open, want 0", g, v)
		}
	}

	// The service's own database: held back until the transaction ends.
	own := holdTransaction(t, database.SQL)
	h.Call("POST", "/v1/customers", `{"id":"c2"}`).Want(201)
	time.Sleep(300 * time.Millisecond)
	if got := f.poll(); len(got) != 0 {
		t.Fatalf("a transaction of the service's database is open, yet the log answered %v", types(got))
	}
	page = string(h.CallAs("", "GET", "/metrics", "").Want(200).Body)
	if v := servertest.GaugeValue(t, page, "records_events_log_held_back_transactions"); v < 1 {
		t.Errorf("held back by %v transactions while one of this database is open, want at least the create", v)
	}
	if err := own.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := types(f.pollFor(1)); len(got) != 1 || got[0] != "customers.created c2" {
		t.Fatalf("after the transaction ended the log answers %v, want the create of c2", got)
	}
	if e := servertest.NextEvent(t, stream); !bytes.Contains([]byte(e.Data), []byte(`"id":"c2"`)) {
		t.Fatalf("the stream answered %s, want the create of c2", e.Data)
	}
}

func openPool(t *testing.T, url string) *sql.DB {
	t.Helper()
	pool, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	pool.SetMaxOpenConns(4)
	t.Cleanup(func() { pool.Close() })
	return pool
}

// holdTransaction begins a transaction in pool that takes an id, left open.
func holdTransaction(t *testing.T, pool *sql.DB) *sql.Tx {
	t.Helper()
	tx, err := pool.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	return tx
}

package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/natstest"
	"records/internal/servertest"
)

// An idle server writes nothing. Once what a few requests set going has
// settled — a webhook's delivery, the events published to NATS, the search
// index's batches and merges — none of the loops the server runs (the
// janitor, the webhook worker, the publisher, the event stream's watch
// with a client listening, the replicas' poll on PostgreSQL, SQLite's
// checkpointer) takes the write lock, begins a transaction or changes a
// row. On SQLite a write that changes nothing still lets the process's
// write lock go, which counts as a write (db.DB.Writes): the checkpointer
// then never sees a quiet second, for its FTS5 merge, nor the search its
// samples kept.
func TestAnIdleServerDoesNotWrite(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			broker := natstest.Start(t) // its stream takes every subject
			database := dbtest.Open(t, d)
			cfg := testConfig()
			cfg.Addr = "127.0.0.1:0"
			cfg.JanitorEvery = 50 * time.Millisecond
			cfg.Webhooks.AllowPrivate = true
			cfg.Webhooks.Poll = 20 * time.Millisecond
			cfg.NATS.URL, cfg.NATS.Stream = broker.URL(), streamName()
			if database.Postgres() {
				// The primary as its own replica: the poll is what is
				// tested, not where reads go.
				cfg.Replicas.URLs = []string{dbtest.URLOf(t, database)}
				cfg.Replicas.Poll = 50 * time.Millisecond
			}
			h := wrap(servertest.NewOn(t, database, cfg, &servertest.Log{}))
			if err := h.srv.Open(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.srv.Close() })

			var delivered atomic.Int64
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				delivered.Add(1)
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(rcv.Close)
			h.call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`/hook","events":["customers.created"]}`).want(201)
			h.call("POST", "/v1/customers", `{"id":"c-1"}`, "Idempotency-Key", "idle-1").want(201)
			h.call("POST", "/v1/customers", `{"id":"c-2"}`).want(201)
			h.call("DELETE", "/v1/customers/c-2", "").want(200) // into the trash, kept 30 days
			h.call("POST", "/v1/returns", `{"id":"r-1","description":"quokka"}`).want(201)
			h.call("GET", "/v1/returns?q=quokka", "").want(200)
			_, hangUp := servertest.OpenStream(t, "http://"+h.srv.Addr(), h.token)
			defer hangUp()

			// On PostgreSQL another package's transaction in the same
			// database may hold the log back a moment (horizon.go).
			waitFor(t, 30*time.Second, "the webhook's deliveries", func() bool { return delivered.Load() == 2 })
			waitFor(t, 30*time.Second, "the events' publication", func() bool {
				return published(t, database, cfg.NATS.Stream)
			})
			// Settled once a window longer than the checkpointer's idle
			// tick (a second, after which it merges what is left) saw no
			// write.
			prints := newWritePrints(t, database)
			settled, deadline := prints.take(), time.Now().Add(15*time.Second)
			for {
				time.Sleep(1500 * time.Millisecond)
				now := prints.take()
				if now == settled {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still writing 15 s after the requests: %s, then %s", settled, now)
				}
				settled = now
			}
			time.Sleep(3 * time.Second)
			if now := prints.take(); now != settled {
				t.Fatalf("an idle server wrote in 3 s: %s, then %s", settled, now)
			}
		})
	}
}

// published tells whether the publisher's stored position, in
// event_followers, is the log's newest event.
func published(t *testing.T, database *db.DB, stream string) bool {
	t.Helper()
	var at, newest sql.NullInt64
	err := database.Each(context.Background(), 1, `SELECT (SELECT "seq" FROM "event_followers" WHERE "id" = ?), (SELECT MAX("id") FROM "events")`,
		[]any{"nats:" + stream}, func(rows *sql.Rows) error { return rows.Scan(&at, &newest) })
	if err != nil {
		t.Fatal(err)
	}
	return at.Valid && at == newest
}

// writePrint is what shows that a database was written: the process's
// SQLite writes (its write lock let go), the transactions the database
// was asked to begin, and the rows' state — SQLite's data_version, which
// every commit of another connection changes, or, on PostgreSQL, the
// versions of every row of the schema's tables (a row inserted, updated,
// deleted or locked changes their count or their xmin and xmax).
type writePrint struct {
	writes       uint64
	transactions int64
	rows         string
}

func (p writePrint) String() string {
	return fmt.Sprintf("%d writes, %d transactions, rows %s", p.writes, p.transactions, p.rows)
}

// writePrints takes a database's write prints, on a connection of its own.
type writePrints struct {
	t        *testing.T
	database *db.DB
	conn     *sql.Conn
	tables   []string // PostgreSQL: the schema's tables
}

func newWritePrints(t *testing.T, database *db.DB) *writePrints {
	t.Helper()
	ctx := context.Background()
	conn, err := database.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &writePrints{t: t, database: database, conn: conn}
	if database.Postgres() {
		rows, err := conn.QueryContext(ctx, `SELECT "table_name" FROM information_schema.tables
WHERE "table_schema" = current_schema() AND "table_type" = 'BASE TABLE' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			p.tables = append(p.tables, name)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// take is the database's write print now.
func (p *writePrints) take() writePrint {
	p.t.Helper()
	ctx := context.Background()
	w := writePrint{writes: p.database.Writes(), transactions: p.database.Transactions()}
	if !p.database.Postgres() {
		var version int64
		if err := p.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
			p.t.Fatal(err)
		}
		w.rows = fmt.Sprint("data_version ", version)
		return w
	}
	for _, table := range p.tables {
		var n, xmin, xmax int64
		err := p.conn.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum("xmin"::text::bigint), 0), COALESCE(sum("xmax"::text::bigint), 0) FROM "`+table+`"`).
			Scan(&n, &xmin, &xmax)
		if err != nil {
			p.t.Fatal(err)
		}
		if n > 0 {
			w.rows += fmt.Sprintf("%s:%d/%d/%d ", table, n, xmin, xmax)
		}
	}
	return w
}

package server

import (
	"context"
	"database/sql"
	"io"
	"slices"
	"testing"
	"time"

	"records/internal/dbtest"
)

// The janitor deletes expired idempotency keys, and events and finished
// deliveries past the retention, and nothing younger; and no event younger
// than the idempotency TTL either (a keyed create's key can be kept on its
// event).
func TestSweep(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			database := dbtest.Open(t, d)
			cfg := DefaultConfig()
			cfg.EventRetention = time.Hour
			cfg.IdempotencyTTL = 30 * time.Minute
			s, err := New(cfg, database, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			now := time.Now().UTC()
			exec := func(text string, args ...any) {
				t.Helper()
				if _, err := database.Exec(ctx, text, args...); err != nil {
					t.Fatal(err)
				}
			}
			for i, at := range []time.Time{now.Add(-2 * time.Hour), now} {
				exec(`INSERT INTO "idempotency_keys" ("id", "fingerprint", "status", "body", "etag", "created_at", "expires_at") VALUES (?, 'f', 201, ?, '', ?, ?)`,
					[]string{"old", "new"}[i], []byte("{}"), at, at.Add(time.Minute))
				exec(`INSERT INTO "events" ("txid", "team_id", "type", "record_id", "occurred_at") VALUES (0, 1, 'customers.created', ?, ?)`,
					[]string{"old", "new"}[i], at.UnixMicro())
				for _, status := range []string{"delivered", "pending"} {
					exec(`INSERT INTO "webhook_deliveries" ("id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "next_attempt_at", "created_at")
VALUES (?, 1, 'wh', 'evt', '{}', 1, ?, ?, ?)`, []string{"old", "new"}[i]+"-"+status, status, at, at)
				}
			}
			s.sweep()
			read := func(table string) []string {
				t.Helper()
				col := "id"
				if table == "events" {
					col = "record_id"
				}
				var got []string
				err := database.Each(ctx, -1, `SELECT "`+col+`" FROM "`+table+`" ORDER BY 1`, nil, func(rows *sql.Rows) error {
					var v string
					got = append(got, v)
					return rows.Scan(&got[len(got)-1])
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			for table, want := range map[string][]string{
				"idempotency_keys":   {"new"},
				"events":             {"new"},
				"webhook_deliveries": {"new-delivered", "new-pending", "old-pending"},
			} {
				if got := read(table); !slices.Equal(got, want) {
					t.Fatalf("%s after the sweep: %v, want %v", table, got, want)
				}
			}
			// With keys living three hours, an event of two hours ago stays.
			s.cfg.IdempotencyTTL = 3 * time.Hour
			exec(`INSERT INTO "events" ("txid", "team_id", "type", "record_id", "occurred_at") VALUES (0, 1, 'customers.created', 'keyed', ?)`,
				now.Add(-2*time.Hour).UnixMicro())
			s.sweep()
			if got, want := read("events"), []string{"keyed", "new"}; !slices.Equal(got, want) {
				t.Fatalf("events after the sweep: %v, want %v", got, want)
			}
		})
	}
}

// A sweep with more rows due than one statement deletes goes on batch
// after batch until none is left, each batch a write in its turn (on
// SQLite, under the process's write lock, so counted); a sweep with none
// due writes nothing (on SQLite, counts no write).
func TestSweepInBatches(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			s, database := trashServer(t, d) // a trash to empty, in every table
			ctx := context.Background()
			past := time.Now().UTC().Add(-time.Hour)
			if _, err := database.Exec(ctx, `WITH RECURSIVE "n" ("i") AS (SELECT 1 UNION ALL SELECT "i" + 1 FROM "n" WHERE "i" < ?)
INSERT INTO "idempotency_keys" ("id", "fingerprint", "status", "body", "etag", "created_at", "expires_at")
SELECT 'k-' || "i", 'f', 201, ?, '', ?, ? FROM "n"`, 2*sweepBatch+1, []byte("{}"), past, past); err != nil {
				t.Fatal(err)
			}
			start := database.Writes()
			s.sweep()
			if n := database.Writes() - start; !database.Postgres() && n < 3 {
				t.Fatalf("the sweep's three batches counted %d writes: not all under the write lock", n)
			}
			var left int
			if err := database.Each(ctx, 1, `SELECT COUNT(*) FROM "idempotency_keys"`, nil, func(rows *sql.Rows) error { return rows.Scan(&left) }); err != nil {
				t.Fatal(err)
			}
			if left != 0 {
				t.Fatalf("%d of %d expired keys left after a sweep", left, 2*sweepBatch+1)
			}
			before := database.Writes()
			s.sweep()
			if after := database.Writes(); after != before {
				t.Fatalf("a sweep with nothing due counted %d writes", after-before)
			}
		})
	}
}

package server

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"records/internal/db"
	"records/internal/spec"
)

// DefaultJanitorEvery is how often the janitor runs unless configured
// (Config.JanitorEvery).
const DefaultJanitorEvery = time.Minute

// DefaultTrashRetention is how long a record stays in the trash unless
// configured (--trash-retention).
const DefaultTrashRetention = 30 * 24 * time.Hour

// janitor deletes what has outlived its time — idempotency keys past
// their expiry, events past their retention, records in the trash past
// theirs — every Config.JanitorEvery until stop closes. Each deletion is its
// own statement over an indexed range, so writers never wait on it for long;
// several instances running it at once delete the same rows harmlessly.
func (s *Server) janitor(stop <-chan struct{}) {
	every := s.cfg.JanitorEvery
	if every <= 0 {
		every = DefaultJanitorEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.sweep()
		}
	}
}

// sweep deletes expired idempotency keys, and events past their retention
// (never younger than the idempotency TTL).
func (s *Server) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
	defer cancel()
	now := time.Now().UTC()
	s.sweepBatches(ctx, "expired idempotency keys", "idempotency_keys",
		`"id" IN (SELECT "id" FROM "idempotency_keys" WHERE "expires_at" < ? LIMIT 5000)`, now)
	s.EmptyTrash(ctx, now)
	if s.cfg.EventRetention > 0 {
		s.sweepBatches(ctx, "deliveries past the events' retention", "webhook_deliveries",
			`"id" IN (SELECT "id" FROM "webhook_deliveries" WHERE "created_at" < ? AND "status" <> 'pending' LIMIT 5000)`,
			now.Add(-s.cfg.EventRetention))
		// Oldest first, along the primary key (an event's number follows
		// its time); kept as long as idempotency keys at least: on SQLite
		// a keyed create's key is kept on its event (package engine).
		s.sweepBatches(ctx, "events past their retention", "events",
			`"id" IN (SELECT "id" FROM "events" ORDER BY "id" LIMIT 5000) AND "occurred_at" < ?`,
			now.Add(-max(s.cfg.EventRetention, s.cfg.IdempotencyTTL)).UnixMicro())
	}
}

// sweepBatch is the rows a sweep deletes in one statement (the LIMIT of
// each sweep's condition).
const sweepBatch = 5000

// sweepBatches deletes the rows of table that the condition where selects,
// at most sweepBatch of them a statement, until a statement deletes fewer:
// each batch its own statement, so that no writer waits behind one long
// delete. It first reads whether any row is to go, along the same index,
// and writes only then: on SQLite a delete of nothing is still a write
// (db.DB.Holds). Each batch is a write as a request's is (db.DB.Write): on
// SQLite it waits its turn for the process's write lock, where a delete
// run beside it took SQLite's own lock from under the writers in line,
// which then polled for it in SQLite's busy handler (sleeps of 1 ms
// growing to 100 ms) for as long as a batch of 5,000 rows took.
func (s *Server) sweepBatches(ctx context.Context, what, table, where string, args ...any) {
	t := spec.Ident(table)
	s.drain(ctx, what, `SELECT EXISTS (SELECT 1 FROM `+t+` WHERE `+where+`)`, args, sweepBatch, func() (int, error) {
		var n int64
		err := s.db.Write(ctx, false, func(w *db.Writer) (err error) {
			n, err = w.Exec(ctx, `DELETE FROM `+t+` WHERE `+where, args...)
			return err
		})
		return int(n), err
	})
}

// drain deletes what is due a batch at a time: it reads first whether any
// row is (due, one boolean with args), and writes only then, batch after
// batch until one erases fewer than size rows; a failure is logged, and
// the next sweep begins again.
func (s *Server) drain(ctx context.Context, what, due string, args []any, size int, batch func() (int, error)) {
	more, err := s.db.Holds(ctx, due, args...)
	for err == nil && more {
		var n int
		n, err = batch()
		more = n == size
	}
	if err != nil {
		s.log.Warn("janitor: deleting "+what, "error", err)
	}
}

// trashBatch is the records the janitor erases from the trash in one
// statement (their children, erased with them, come on top).
const trashBatch = 500

// janitorMeta is the events' meta of the janitor's purges: no request,
// no token — the service itself.
const janitorMeta = `{"request_id":null,"actor":null}`

// EmptyTrash erases for good the records in the trash since before
// --trash-retention, table after table, each parent's before its
// children's (the database erases a parent's children with it), in
// statements of trashBatch records. Each statement is a transaction with
// the purged events of what it erased (written by the tables' triggers):
// a restart between two loses nothing and, the rows being gone, purges
// nothing twice; several instances sweeping at once erase each row once.
// The after-commit rules of each record a statement erased run as a
// permanent delete's do (children erased with their parent run none).
func (s *Server) EmptyTrash(ctx context.Context, now time.Time) {
	if s.cfg.TrashRetention <= 0 {
		return
	}
	cutoff := now.Add(-s.cfg.TrashRetention).UnixMicro()
	for _, table := range s.trash {
		s.purgeTrash(ctx, table, cutoff)
	}
}

// purgeTrash erases the records of table in the trash since before cutoff
// (Unix microseconds), trashBatch a statement until fewer are left, and
// runs the after-commit rules of each. It first reads whether the trash
// holds any, along its index on deleted_at, and writes only then (drain).
func (s *Server) purgeTrash(ctx context.Context, table string, cutoff int64) {
	t := spec.Ident(table)
	text := `DELETE FROM ` + t + ` WHERE "id" IN (SELECT "id" FROM ` + t + ` WHERE "deleted_at" < ? ORDER BY "deleted_at" LIMIT ` +
		strconv.Itoa(trashBatch) + `) AND set_config('records.meta', ?, true) IS NOT NULL RETURNING "team_id", "id"`
	s.drain(ctx, "the trash of "+table, `SELECT EXISTS (SELECT 1 FROM `+t+` WHERE "deleted_at" < ?)`, []any{cutoff}, trashBatch,
		func() (int, error) { return s.purgeBatch(ctx, table, text, cutoff) })
}

// purgeBatch runs text, the purge of a batch of table's trash, and the
// after-commit rules of each record it erased; it answers how many. A
// statement is a write as every other: on SQLite it waits its turn, so
// the events' setting its triggers read is its own.
func (s *Server) purgeBatch(ctx context.Context, table, text string, cutoff int64) (int, error) {
	type purge struct {
		team int
		id   string
	}
	var purged []purge
	err := s.db.Write(ctx, false, func(w *db.Writer) error {
		_, err := w.Query(ctx, -1, text, []any{cutoff, janitorMeta}, func(rows *sql.Rows) error {
			var p purge
			err := rows.Scan(&p.team, &p.id)
			purged = append(purged, p)
			return err
		})
		return err
	})
	for _, p := range purged {
		s.records.Purged(ctx, table, p.team, p.id)
	}
	return len(purged), err
}

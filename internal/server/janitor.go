package server

import (
	"context"
	"time"
)

// janitorEvery is how often the janitor runs.
const janitorEvery = time.Minute

// janitor deletes what has outlived its time — idempotency keys past
// their expiry — every janitorEvery until stop closes. Each deletion is its
// own statement over an indexed range, so writers never wait on it for long;
// several instances running it at once delete the same rows harmlessly.
func (s *Server) janitor(stop <-chan struct{}) {
	t := time.NewTicker(janitorEvery)
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
	s.sweepBatches(ctx, "expired idempotency keys",
		`DELETE FROM "idempotency_keys" WHERE "id" IN (SELECT "id" FROM "idempotency_keys" WHERE "expires_at" < ? LIMIT 5000)`, now)
	if s.cfg.EventRetention > 0 {
		s.sweepBatches(ctx, "deliveries past the events' retention",
			`DELETE FROM "webhook_deliveries" WHERE "id" IN (SELECT "id" FROM "webhook_deliveries" WHERE "created_at" < ? AND "status" <> 'pending' LIMIT 5000)`,
			now.Add(-s.cfg.EventRetention))
		// Oldest first, along the primary key (an event's number follows
		// its time); kept as long as idempotency keys at least: on SQLite
		// a keyed create's key is kept on its event (package engine).
		s.sweepBatches(ctx, "events past their retention",
			`DELETE FROM "events" WHERE "id" IN (SELECT "id" FROM "events" ORDER BY "id" LIMIT 5000) AND "occurred_at" < ?`,
			now.Add(-max(s.cfg.EventRetention, s.cfg.IdempotencyTTL)).UnixMicro())
	}
}

// sweepBatches runs a DELETE of at most 5,000 rows until it deletes fewer:
// each batch its own statement, so that no writer waits behind one long
// delete.
func (s *Server) sweepBatches(ctx context.Context, what, text string, arg any) {
	for {
		res, err := s.db.Exec(ctx, text, arg)
		if err != nil {
			s.log.Warn("janitor: deleting "+what, "error", err)
			return
		}
		if n, _ := res.RowsAffected(); n < 5000 {
			return
		}
	}
}

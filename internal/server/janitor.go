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

// sweep deletes expired idempotency keys, and events past their retention.
func (s *Server) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
	defer cancel()
	if _, err := s.db.Exec(ctx, `DELETE FROM "idempotency_keys" WHERE "expires_at" < ?`, time.Now().UTC()); err != nil {
		s.log.Warn("janitor: deleting expired idempotency keys", "error", err)
	}
	if s.cfg.EventRetention > 0 {
		old := time.Now().Add(-s.cfg.EventRetention).UTC()
		if _, err := s.db.Exec(ctx, `DELETE FROM "webhook_deliveries" WHERE "created_at" < ? AND "status" <> 'pending'`, old); err != nil {
			s.log.Warn("janitor: deleting deliveries past the events' retention", "error", err)
		}
		before := old.UnixMicro()
		// In batches, each its own statement, so that no writer waits
		// behind one long delete; oldest first, along the primary key (an
		// event's number follows its time).
		for {
			res, err := s.db.Exec(ctx, `DELETE FROM "events" WHERE "id" IN (SELECT "id" FROM "events" ORDER BY "id" LIMIT 5000) AND "occurred_at" < ?`, before)
			if err != nil {
				s.log.Warn("janitor: deleting events past their retention", "error", err)
				break
			}
			if n, _ := res.RowsAffected(); n < 5000 {
				break
			}
		}
	}
}

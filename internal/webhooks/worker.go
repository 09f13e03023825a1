package webhooks

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"records/internal/engine"
)

// Deliveries are rows of webhook_deliveries, one per attempt: the
// dispatcher writes each event's first attempts, for every webhook that
// wants the event, in the transaction that moves its position in the log;
// an instance leases due attempts (FOR UPDATE SKIP LOCKED on PostgreSQL, so
// that instances never lease the same one), makes them, and records each
// outcome — a failure before the last attempt writing the next one — in a
// transaction that holds only while its lease does. An instance that dies
// mid-attempt leaves a lease that lapses; the attempt is then recorded as
// interrupted and made again: at least once, across crashes.
//
// This file holds the loop and the leases; dispatch.go turns events into
// first attempts, attempt.go makes an attempt and records its outcome, and
// cache.go keeps the webhooks attempts are made with.

// Run dispatches and delivers until stop closes: every Poll, and at once
// whenever an attempt ends while more are due.
func (s *Service) Run(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }()
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	slots := make(chan struct{}, s.Concurrency)
	freed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		for {
			n, err := s.dispatch(ctx)
			if err != nil && ctx.Err() == nil {
				s.Logger.Warn("webhooks: dispatching events", "error", err)
			}
			if n < dispatchPage {
				break
			}
		}
		if free := s.Concurrency - len(slots); free > 0 {
			claimed, err := s.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				s.Logger.Warn("webhooks: leasing attempts", "error", err)
			}
			for _, d := range claimed {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() {
						<-slots
						wg.Done()
						select {
						case freed <- struct{}{}:
						default:
						}
					}()
					s.attempt(ctx, d)
				}()
			}
			if len(claimed) < free {
				// Nothing more is due: wait for the next poll.
				select {
				case <-freed:
				default:
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-freed:
		}
	}
}

// errInterrupted is the error of an attempt whose lease lapsed before its
// outcome was recorded.
const errInterrupted = "no outcome was recorded: the instance making the attempt stopped (or lost its lease) before it ended; the endpoint may have received it"

// claim leases up to n due attempts, after recording the attempts whose
// leases lapsed (interrupted).
func (s *Service) claim(ctx context.Context, n int) ([]*Delivery, error) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	until := now.Add(s.lease)
	lock := ""
	if s.DB.Postgres() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	due, err := s.DB.Holds(ctx, `SELECT EXISTS (SELECT 1 FROM "webhook_deliveries"
WHERE "status" = 'pending' AND "next_attempt_at" <= ? AND ("lease_until" IS NULL OR "lease_until" < ?))`, now, now)
	if err != nil || !due {
		return nil, err
	}
	var out []*Delivery
	interrupted := 0
	err = s.DB.Write(ctx, true, func(w engine.Writer) error {
		var err error
		if interrupted, err = s.interrupted(ctx, w, now, n, lock); err != nil {
			return err
		}
		_, err = w.Query(ctx, -1, `UPDATE "webhook_deliveries" SET "lease_until" = ? WHERE "id" IN (SELECT "id" FROM "webhook_deliveries"
WHERE "status" = 'pending' AND "next_attempt_at" <= ? AND ("lease_until" IS NULL OR "lease_until" < ?) ORDER BY "next_attempt_at" LIMIT ?`+lock+`)
RETURNING "id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "status_code", "error", "next_attempt_at", "lease_until", "delivered_at", "created_at"`,
			[]any{until, now, now, n}, func(rows *sql.Rows) error {
				d, err := scanDelivery(rows)
				out = append(out, d)
				return err
			})
		return err
	})
	if err == nil && interrupted > 0 {
		s.outcomes.WithLabelValues("interrupted").Add(float64(interrupted))
	}
	return out, err
}

// interrupted records, as failed, up to n attempts whose lease lapsed with
// the attempt pending — its instance died or stopped mid-attempt, after
// the request may have reached the endpoint — and writes the attempt that
// makes it again, due now: each request the endpoint may have seen is a
// row of the deliveries list. (Made again under the same row, the list
// showed fewer attempts than the endpoint received.) It returns how many
// it recorded.
func (s *Service) interrupted(ctx context.Context, w engine.Writer, now time.Time, n int, lock string) (int, error) {
	var lapsed []*Delivery
	// Among the attempts the claim would lease (a range of the index on
	// status and next_attempt_at, as the claim reads it), those leased
	// before: a lapsed lease is due by the time it lapses.
	_, err := w.Query(ctx, -1, `UPDATE "webhook_deliveries" SET "status" = 'failed', "error" = ?, "lease_until" = NULL WHERE "id" IN (
SELECT "id" FROM "webhook_deliveries" WHERE "status" = 'pending' AND "next_attempt_at" <= ? AND ("lease_until" IS NULL OR "lease_until" < ?)
ORDER BY "next_attempt_at" LIMIT ?`+lock+`) AND "lease_until" IS NOT NULL
RETURNING "id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "status_code", "error", "next_attempt_at", "lease_until", "delivered_at", "created_at"`,
		[]any{errInterrupted, now, now, n}, func(rows *sql.Rows) error {
			d, err := scanDelivery(rows)
			lapsed = append(lapsed, d)
			return err
		})
	if err != nil || len(lapsed) == 0 {
		return 0, err
	}
	again := make([]*Delivery, len(lapsed))
	for i, d := range lapsed {
		again[i] = &Delivery{ID: newDeliveryID(), Team: d.Team, WebhookID: d.WebhookID, EventID: d.EventID, Body: d.Body,
			Attempt: d.Attempt + 1, Status: "pending", NextAt: now, CreatedAt: now}
	}
	return len(lapsed), insertDeliveries(ctx, w, again)
}

// attempt makes a leased attempt and records its outcome.
func (s *Service) attempt(ctx context.Context, d *Delivery) {
	code, failure, failing := s.send(ctx, d)
	if ctx.Err() != nil {
		return // shutting down: the lease lapses and the attempt is made again
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.record(rctx, d, code, failure, failing); err != nil {
		s.Logger.Warn("webhooks: recording an attempt", "delivery", d.ID, "error", err)
	}
}

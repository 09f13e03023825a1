package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"

	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"records/internal/engine"
	"records/internal/events"
)

// Deliveries are rows of webhook_deliveries, one per attempt: the
// dispatcher writes each event's first attempts, for every webhook that
// wants the event, in the transaction that moves its position in the log;
// an instance leases due attempts (FOR UPDATE SKIP LOCKED on PostgreSQL, so
// that instances never lease the same one), makes them, and records each
// outcome — a failure before the last attempt writing the next one — in a
// transaction that holds only while its lease does. An instance that dies
// mid-attempt leaves a lease that lapses, and the attempt is made again:
// at least once, across crashes.

// Run dispatches and delivers every Poll until stop closes.
func (s *Service) Run(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }()
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	slots := make(chan struct{}, s.Concurrency)
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
		free := s.Concurrency - len(slots)
		if free > 0 {
			claimed, err := s.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				s.Logger.Warn("webhooks: leasing attempts", "error", err)
			}
			for _, d := range claimed {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-slots; wg.Done() }()
					s.attempt(ctx, d)
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dispatchPage is how many events the dispatcher reads a transaction.
const dispatchPage = 500

// follower is the dispatcher's row in event_followers.
const follower = "webhooks"

// dispatch writes the first attempts of the events after the dispatcher's
// position, and moves it; it returns how many events it read. On
// PostgreSQL one instance dispatches at a time (an advisory lock, which,
// unlike a row lock, gives the transaction no id to hold the log back).
func (s *Service) dispatch(ctx context.Context) (int, error) {
	read := 0
	err := s.DB.Write(ctx, true, func(w engine.Writer) error {
		if w.Postgres() {
			h := fnv.New64a()
			h.Write([]byte("records:webhooks:dispatch"))
			got := false
			if err := w.Each(ctx, 1, `SELECT pg_try_advisory_xact_lock(?)`, []any{int64(h.Sum64())},
				func(rows *sql.Rows) error { return rows.Scan(&got) }); err != nil || !got {
				return err
			}
		}
		var pos events.Position
		found := false
		if err := w.Each(ctx, 1, `SELECT "txid", "seq" FROM "event_followers" WHERE "id" = ?`, []any{follower},
			func(rows *sql.Rows) error { found = true; return rows.Scan(&pos.TxID, &pos.Seq) }); err != nil {
			return err
		}
		if !found {
			// The first dispatch on the database reads the log from its
			// start: no webhook existed before it, so older events go
			// nowhere, and none made since is missed.
			if _, err := w.Exec(ctx, `INSERT INTO "event_followers" ("id", "txid", "seq") VALUES (?, 0, 0)`, follower); err != nil {
				return err
			}
		}
		page, err := s.Log.All(ctx, w, pos, dispatchPage)
		if err != nil || len(page) == 0 {
			return err
		}
		read = len(page)
		hooks, err := s.subscribed(ctx, w, page)
		if err != nil {
			return err
		}
		var out []*Delivery
		now := time.Now().UTC().Truncate(time.Microsecond)
		for i := range page {
			e := &page[i]
			var body []byte
			for _, h := range hooks[e.Team] {
				if !slices.Contains(h.Events, "*") && !slices.Contains(h.Events, e.Type) {
					continue
				}
				if body == nil {
					if body, err = s.Log.Append(nil, e.Team, &e.Event); err != nil {
						return err
					}
				}
				out = append(out, &Delivery{ID: newDeliveryID(), Team: e.Team, WebhookID: h.ID, EventID: events.ID(e.Seq),
					Body: string(body), Attempt: 1, Status: "pending", NextAt: now, CreatedAt: now})
			}
		}
		if err := insertDeliveries(ctx, w, out); err != nil {
			return err
		}
		last := page[len(page)-1].Position
		_, err = w.Exec(ctx, `UPDATE "event_followers" SET "txid" = ?, "seq" = ? WHERE "id" = ?`, last.TxID, last.Seq, follower)
		return err
	})
	if err == nil {
		s.eventsRead.Add(float64(read))
	}
	return read, err
}

// subscribed reads the enabled webhooks of the teams of page.
func (s *Service) subscribed(ctx context.Context, r engine.Reader, page []events.TeamEvent) (map[int][]*Webhook, error) {
	var teams []any
	for _, e := range page {
		if !slices.Contains(teams, any(e.Team)) {
			teams = append(teams, e.Team)
		}
	}
	out := map[int][]*Webhook{}
	text := webhookColumns + ` WHERE "disabled_at" IS NULL AND "team_id" IN (?` + strings.Repeat(", ?", len(teams)-1) + `)`
	err := r.Each(ctx, -1, text, teams, func(rows *sql.Rows) error {
		w, err := scanWebhook(rows)
		if err == nil {
			out[w.Team] = append(out[w.Team], w)
		}
		return err
	})
	return out, err
}

// claim leases up to n due attempts.
func (s *Service) claim(ctx context.Context, n int) ([]*Delivery, error) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	until := now.Add(s.lease)
	lock := ""
	if s.DB.Postgres() {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var out []*Delivery
	err := s.DB.Write(ctx, false, func(w engine.Writer) error {
		_, err := w.Query(ctx, -1, `UPDATE "webhook_deliveries" SET "lease_until" = ? WHERE "id" IN (SELECT "id" FROM "webhook_deliveries"
WHERE "status" = 'pending' AND "next_attempt_at" <= ? AND ("lease_until" IS NULL OR "lease_until" < ?) ORDER BY "next_attempt_at" LIMIT ?`+lock+`)
RETURNING "id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "status_code", "error", "next_attempt_at", "lease_until", "delivered_at", "created_at"`,
			[]any{until, now, now, n}, func(rows *sql.Rows) error {
				d, err := scanDelivery(rows)
				out = append(out, d)
				return err
			})
		return err
	})
	return out, err
}

// attempt makes a leased attempt and records its outcome.
func (s *Service) attempt(ctx context.Context, d *Delivery) {
	code, failure := s.send(ctx, d)
	if ctx.Err() != nil {
		return // shutting down: the lease lapses and the attempt is made again
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.record(rctx, d, code, failure); err != nil {
		s.Logger.Warn("webhooks: recording an attempt", "delivery", d.ID, "error", err)
	}
}

// send makes the attempt: the status code, or why it failed.
func (s *Service) send(ctx context.Context, d *Delivery) (int, string) {
	w, err := s.find(ctx, s.DB, d.Team, d.WebhookID)
	if err != nil {
		return 0, "the webhook is gone: " + err.Error()
	}
	if w.DisabledAt.Valid {
		return 0, "the webhook is disabled"
	}
	secret, err := s.sealer.open(w.ID, w.Secret)
	if err != nil {
		return 0, err.Error()
	}
	ts := time.Now().Unix()
	sig, err := Sign(secret, d.EventID, ts, []byte(d.Body))
	if err != nil {
		return 0, err.Error()
	}
	actx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, w.URL, strings.NewReader(d.Body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "records-webhooks/1")
	req.Header.Set("webhook-id", d.EventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, "the endpoint answered " + resp.Status
	}
	return resp.StatusCode, ""
}

// record writes an attempt's outcome, if the lease is still this
// instance's: delivered, or failed and — unless it was the last — the next
// attempt scheduled. A webhook failing every attempt for DisableAfter is
// disabled.
func (s *Service) record(ctx context.Context, d *Delivery, code int, failure string) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	status := sql.NullInt64{Int64: int64(code), Valid: code != 0}
	outcome := "delivered"
	err := s.DB.Write(ctx, true, func(w engine.Writer) error {
		if failure == "" {
			n, err := w.Exec(ctx, `UPDATE "webhook_deliveries" SET "status" = 'delivered', "status_code" = ?, "delivered_at" = ?, "lease_until" = NULL
WHERE "id" = ? AND "status" = 'pending' AND "lease_until" = ?`, status, now, d.ID, d.LeaseUntil.Time)
			if err != nil || n == 0 {
				outcome = ""
				return err
			}
			_, err = w.Exec(ctx, `UPDATE "webhooks" SET "failing_since" = NULL WHERE "id" = ? AND "failing_since" IS NOT NULL`, d.WebhookID)
			return err
		}
		if len(failure) > 1000 {
			failure = failure[:1000]
		}
		n, err := w.Exec(ctx, `UPDATE "webhook_deliveries" SET "status" = 'failed', "status_code" = ?, "error" = ?, "lease_until" = NULL
WHERE "id" = ? AND "status" = 'pending' AND "lease_until" = ?`, status, failure, d.ID, d.LeaseUntil.Time)
		if err != nil || n == 0 {
			outcome = ""
			return err
		}
		outcome = "gave_up"
		if d.Attempt <= len(s.Schedule) {
			outcome = "failed"
			wait := s.Schedule[d.Attempt-1]
			wait += time.Duration((rand.Float64()*0.2 - 0.1) * float64(wait)) // ±10% jitter
			next := &Delivery{ID: newDeliveryID(), Team: d.Team, WebhookID: d.WebhookID, EventID: d.EventID, Body: d.Body,
				Attempt: d.Attempt + 1, Status: "pending", NextAt: now.Add(wait), CreatedAt: now}
			if err := insertDeliveries(ctx, w, []*Delivery{next}); err != nil {
				return err
			}
		}
		if _, err := w.Exec(ctx, `UPDATE "webhooks" SET "failing_since" = ? WHERE "id" = ? AND "failing_since" IS NULL`, now, d.WebhookID); err != nil {
			return err
		}
		_, err = w.Exec(ctx, `UPDATE "webhooks" SET "disabled_at" = ? WHERE "id" = ? AND "disabled_at" IS NULL AND "failing_since" <= ?`,
			now, d.WebhookID, now.Add(-s.DisableAfter))
		return err
	})
	if err == nil && outcome != "" {
		s.outcomes.WithLabelValues(outcome).Inc()
		if outcome == "delivered" {
			if at, ok := occurredAt(d.Body); ok {
				s.lag.Observe(now.Sub(at).Seconds())
			}
		}
	}
	return err
}

// occurredAt reads an event's occurred_at from its JSON.
func occurredAt(body string) (time.Time, bool) {
	var e struct {
		OccurredAt time.Time `json:"occurred_at"`
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&e); err != nil {
		return time.Time{}, false
	}
	return e.OccurredAt, true
}

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

// dispatchPage is how many events the dispatcher reads a statement.
const dispatchPage = 500

// followerOf names a team's position in event_followers.
func followerOf(team int) string { return "webhooks:" + strconv.Itoa(team) }

// follow starts following a team's events from now, unless they are
// followed already: in the transaction that makes a team's first webhook.
func (s *Service) follow(ctx context.Context, w engine.Writer, team int) error {
	others := false
	if err := w.Each(ctx, 1, `SELECT 1 FROM "webhooks" WHERE "team_id" = ?`, []any{team},
		func(*sql.Rows) error { others = true; return nil }); err != nil || others {
		return err
	}
	pos, err := s.Log.LastIn(ctx, w, team)
	if err != nil {
		return err
	}
	_, err = w.Exec(ctx, `INSERT INTO "event_followers" ("id", "txid", "seq") VALUES (?, ?, ?)
ON CONFLICT ("id") DO UPDATE SET "txid" = excluded."txid", "seq" = excluded."seq"`, followerOf(team), pos.TxID, pos.Seq)
	return err
}

// dispatch writes the first attempts of the events after each team's
// position, for the team's enabled webhooks that want them, and moves the
// positions, in one transaction; it returns the most events it read of one
// team. Only teams with webhooks are followed, each along its own log's
// index. On PostgreSQL one instance dispatches at a time (an advisory
// lock, which, unlike a row lock, gives the transaction no id to hold the
// log back).
func (s *Service) dispatch(ctx context.Context) (int, error) {
	most, read := 0, 0
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
		var teams []int
		if err := w.Each(ctx, -1, `SELECT DISTINCT "team_id" FROM "webhooks"`, nil, func(rows *sql.Rows) error {
			var team int
			err := rows.Scan(&team)
			teams = append(teams, team)
			return err
		}); err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		for _, team := range teams {
			var pos events.Position
			found := false
			if err := w.Each(ctx, 1, `SELECT "txid", "seq" FROM "event_followers" WHERE "id" = ?`, []any{followerOf(team)},
				func(rows *sql.Rows) error { found = true; return rows.Scan(&pos.TxID, &pos.Seq) }); err != nil {
				return err
			}
			if !found {
				continue
			}
			page, err := s.Log.PageIn(ctx, w, team, pos, events.Filter{}, dispatchPage)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				continue
			}
			// The team's webhooks are read after its events: a webhook
			// enabled (or made) before an event was committed is seen
			// enabled here even on PostgreSQL, where each statement of
			// this transaction sees what committed before it began.
			var list []*Webhook
			if err := w.Each(ctx, -1, webhookColumns+` WHERE "team_id" = ?`, []any{team}, func(rows *sql.Rows) error {
				h, err := scanWebhook(rows)
				list = append(list, h)
				return err
			}); err != nil {
				return err
			}
			most, read = max(most, len(page)), read+len(page)
			var out []*Delivery
			for i := range page {
				e := &page[i]
				var body []byte
				for _, h := range list {
					if h.DisabledAt.Valid || !slices.Contains(h.Events, "*") && !slices.Contains(h.Events, e.Type) {
						continue
					}
					if body == nil {
						body = s.Log.Append(nil, team, e)
					}
					out = append(out, &Delivery{ID: newDeliveryID(), Team: team, WebhookID: h.ID, EventID: s.Log.ID(e.Seq),
						Body: string(body), Attempt: 1, Status: "pending", NextAt: now, CreatedAt: now})
				}
			}
			if err := insertDeliveries(ctx, w, out); err != nil {
				return err
			}
			last := page[len(page)-1].Position
			if _, err := w.Exec(ctx, `UPDATE "event_followers" SET "txid" = ?, "seq" = ? WHERE "id" = ?`, last.TxID, last.Seq, followerOf(team)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.eventsRead.Add(float64(read))
	}
	return most, err
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
	var out []*Delivery
	interrupted := 0
	err := s.DB.Write(ctx, true, func(w engine.Writer) error {
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

// send makes the attempt: the status code, or why it failed; and whether
// the webhook was failing already.
func (s *Service) send(ctx context.Context, d *Delivery) (code int, failure string, failing bool) {
	w, err := s.cached(ctx, d.Team, d.WebhookID)
	if err != nil {
		return 0, "the webhook is gone: " + err.Error(), false
	}
	failing = w.FailingSince.Valid
	if w.DisabledAt.Valid {
		return 0, errDisabled, failing
	}
	secret, err := s.sealer.Open(w.ID, w.Secret)
	if err != nil {
		return 0, err.Error(), failing
	}
	ts := time.Now().Unix()
	sig, err := Sign(string(secret), d.EventID, ts, []byte(d.Body))
	if err != nil {
		return 0, err.Error(), failing
	}
	actx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, w.URL, strings.NewReader(d.Body))
	if err != nil {
		return 0, err.Error(), failing
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "records-webhooks/1")
	req.Header.Set("webhook-id", d.EventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error(), failing
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, "the endpoint answered " + resp.Status, failing
	}
	return resp.StatusCode, "", failing
}

// record writes an attempt's outcome, if the lease is still this
// instance's: delivered, or failed and — unless it was the last — the next
// attempt scheduled. A webhook failing every attempt for DisableAfter is
// disabled.
func (s *Service) record(ctx context.Context, d *Delivery, code int, failure string, failing bool) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	status := sql.NullInt64{Int64: int64(code), Valid: code != 0}
	outcome := "delivered"
	var err error
	if failure == "" {
		// Autocommitted: the attempt delivered, then, if it was failing,
		// the webhook no longer so.
		err = s.DB.Write(ctx, false, func(w engine.Writer) error {
			n, err := w.Exec(ctx, `UPDATE "webhook_deliveries" SET "status" = 'delivered', "status_code" = ?, "delivered_at" = ?, "lease_until" = NULL
WHERE "id" = ? AND "status" = 'pending' AND "lease_until" = ?`, status, now, d.ID, d.LeaseUntil.Time)
			if err != nil || n == 0 {
				outcome = ""
				return err
			}
			if failing {
				_, err = w.Exec(ctx, `UPDATE "webhooks" SET "failing_since" = NULL WHERE "id" = ? AND "failing_since" IS NOT NULL`, d.WebhookID)
				s.forget(d.WebhookID)
			}
			return err
		})
	} else {
		outcome, err = s.recordFailure(ctx, d, status, failure, failing, now)
	}
	if err == nil && outcome != "" {
		s.outcomes.WithLabelValues(outcome).Inc()
		if at, ok := occurredAt(d.Body); ok && outcome == "delivered" {
			s.lag.Observe(now.Sub(at).Seconds())
		}
	}
	return err
}

// recordFailure writes a failed attempt, the next one unless it was the
// last, and the webhook's failing state, in one transaction; outcome says
// which it was ("" when the lease had lapsed and nothing was written).
func (s *Service) recordFailure(ctx context.Context, d *Delivery, status sql.NullInt64, failure string, failing bool, now time.Time) (outcome string, err error) {
	err = s.DB.Write(ctx, true, func(w engine.Writer) error {
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
		if d.Attempt <= len(s.Schedule) && failure != errDisabled {
			outcome = "failed"
			wait := s.Schedule[d.Attempt-1]
			wait += time.Duration((rand.Float64()*0.2 - 0.1) * float64(wait)) // ±10% jitter
			next := &Delivery{ID: newDeliveryID(), Team: d.Team, WebhookID: d.WebhookID, EventID: d.EventID, Body: d.Body,
				Attempt: d.Attempt + 1, Status: "pending", NextAt: now.Add(wait), CreatedAt: now}
			if err := insertDeliveries(ctx, w, []*Delivery{next}); err != nil {
				return err
			}
		}
		if !failing {
			if _, err := w.Exec(ctx, `UPDATE "webhooks" SET "failing_since" = ? WHERE "id" = ? AND "failing_since" IS NULL`, now, d.WebhookID); err != nil {
				return err
			}
			s.forget(d.WebhookID)
		}
		_, err = w.Exec(ctx, `UPDATE "webhooks" SET "disabled_at" = ? WHERE "id" = ? AND "disabled_at" IS NULL AND "failing_since" <= ?`,
			now, d.WebhookID, now.Add(-s.DisableAfter))
		s.forget(d.WebhookID)
		return err
	})
	return outcome, err
}

// errDisabled is the failure of an attempt at a disabled webhook: no
// attempt follows it.
const errDisabled = "the webhook is disabled"

// cachedWebhook is a webhook as an instance last read it (nil: forgotten).
// The cache holds pointers, so that a read which began before a change
// stores what it read only if nothing forgot the webhook meanwhile.
type cachedWebhook struct {
	w    *Webhook
	read time.Time
}

// webhookCacheTTL is how long an instance delivers with what it last read
// of a webhook: a change (a new URL, disabling) reaches deliveries within it.
const webhookCacheTTL = time.Second

// cached reads a webhook for a delivery, through a short cache.
func (s *Service) cached(ctx context.Context, team int, id string) (*Webhook, error) {
	v, ok := s.cache.Load(id)
	if ok {
		if c := v.(*cachedWebhook); c.w != nil && time.Since(c.read) < webhookCacheTTL {
			return c.w, nil
		}
	} else {
		v, _ = s.cache.LoadOrStore(id, &cachedWebhook{})
	}
	w, err := s.find(ctx, s.DB, team, id)
	if err != nil {
		s.cache.CompareAndDelete(id, v)
		return nil, err
	}
	s.cache.CompareAndSwap(id, v, &cachedWebhook{w: w, read: time.Now()})
	return w, nil
}

// forget drops a webhook from the cache, after this instance changed it,
// and keeps a read begun before the change from storing what it read.
func (s *Service) forget(id string) { s.cache.Store(id, &cachedWebhook{}) }

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

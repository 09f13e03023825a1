package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"records/internal/engine"
)

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

package webhooks

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"records/internal/db"
	"records/internal/edge"
	"records/internal/engine"
	"records/internal/events"
	"records/internal/metrics"
	"records/internal/query"
	"records/internal/seal"
	"records/internal/spec"
	"records/internal/wire"
)

// DefaultSchedule is the wait before each retry: 8 attempts over about
// 27 hours (the first at once), as Standard Webhooks senders commonly do.
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// ParseSchedule reads a retry schedule: comma-separated durations, one per
// retry (1s,1s,1s: 4 attempts a second apart).
func ParseSchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("retry schedule %q: each retry's wait must be a duration such as 5s or 2h", s)
		}
		out = append(out, d)
	}
	if len(out) > 50 {
		return nil, fmt.Errorf("retry schedule %q: at most 50 retries", s)
	}
	return out, nil
}

// Config configures delivery.
type Config struct {
	// AllowPrivate lets webhooks reach loopback and private addresses.
	AllowPrivate bool
	// Schedule is the wait before each retry (DefaultSchedule when nil).
	Schedule []time.Duration
	// Timeout bounds one attempt: a 2xx within it is delivered.
	Timeout time.Duration
	// Poll is how often the dispatcher and the worker look for work.
	Poll time.Duration
	// DisableAfter disables a webhook that has failed every attempt for
	// this long.
	DisableAfter time.Duration
	// Concurrency is how many attempts an instance makes at once.
	Concurrency int
}

// DefaultConfig holds the documented defaults.
func DefaultConfig() Config {
	return Config{Timeout: 10 * time.Second, Poll: 100 * time.Millisecond, DisableAfter: 72 * time.Hour, Concurrency: 64}
}

// Service serves the webhook routes and delivers.
type Service struct {
	Config
	DB      *db.DB
	Engine  *engine.Service
	Log     *events.Log
	Cursors *query.Cursors
	Logger  *slog.Logger

	sealer *seal.Sealer
	client *http.Client
	cache  sync.Map // webhook id → *cachedWebhook
	// lease is how long an instance holds an attempt: longer than the
	// attempt may take, so that only a crashed instance's lapse.
	lease time.Duration

	eventsRead prometheus.Counter
	outcomes   *prometheus.CounterVec
	lag        prometheus.Histogram
}

// New makes the service; the key that seals secrets is read, or made, in
// the database.
func New(ctx context.Context, cfg Config, database *db.DB, eng *engine.Service, log *events.Log, cursors *query.Cursors, logger *slog.Logger) (*Service, error) {
	key, err := database.Key(ctx, "webhook-secrets", 32)
	if err != nil {
		return nil, err
	}
	sl, err := seal.New(key)
	if err != nil {
		return nil, err
	}
	if cfg.Schedule == nil {
		cfg.Schedule = DefaultSchedule
	}
	s := &Service{Config: cfg, DB: database, Engine: eng, Log: log, Cursors: cursors, Logger: logger, sealer: sl,
		lease: 2*cfg.Timeout + 2*time.Second}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowPrivate {
		dialer.Control = dialControl
	}
	s.client = &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			Proxy: nil, DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4,
			TLSHandshakeTimeout: cfg.Timeout, ResponseHeaderTimeout: cfg.Timeout, IdleConnTimeout: time.Minute,
		},
		// A redirect is an answer, not a 2xx: it is not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s.eventsRead = prometheus.NewCounter(prometheus.CounterOpts{Name: "records_events_total",
		Help: "Events the webhook dispatcher has read from the log (each event once, across instances)."})
	s.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "records_webhook_deliveries_total",
		Help: "Delivery attempts made, by outcome: delivered, failed (retried later), gave_up (the last attempt failed), " +
			"or interrupted (its instance stopped mid-attempt; made again)."}, []string{"outcome"})
	s.lag = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "records_webhook_delivery_lag_seconds",
		Help:    "From an event's commit to its delivery, for deliveries that succeed.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86400}})
	return s, nil
}

// Collectors are the service's metrics, the queue's depth among them.
func (s *Service) Collectors() []prometheus.Collector {
	depth := metrics.QueryGauge("records_webhook_queue_depth", "Delivery attempts pending (due now or later).",
		s.DB.Each, `SELECT COUNT(*) FROM "webhook_deliveries" WHERE "status" = 'pending'`)
	return []prometheus.Collector{s.eventsRead, s.outcomes, s.lag, depth}
}

// Delivery is one attempt.
type Delivery struct {
	ID         string
	Team       int
	WebhookID  string
	EventID    string
	Body       string
	Attempt    int
	Status     string
	StatusCode sql.NullInt64
	Error      sql.NullString
	NextAt     time.Time
	LeaseUntil sql.NullTime
	Delivered  sql.NullTime
	CreatedAt  time.Time
}

const deliveryColumns = `SELECT "id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "status_code", "error", "next_attempt_at", "lease_until", "delivered_at", "created_at" FROM "webhook_deliveries"`

func scanDelivery(rows *sql.Rows) (*Delivery, error) {
	var d Delivery
	err := rows.Scan(&d.ID, &d.Team, &d.WebhookID, &d.EventID, &d.Body, &d.Attempt, &d.Status, &d.StatusCode, &d.Error, &d.NextAt, &d.LeaseUntil, &d.Delivered, &d.CreatedAt)
	return &d, err
}

func appendDelivery(b []byte, d *Delivery) []byte {
	b = append(b, `{"id":`...)
	b = wire.AppendString(b, d.ID)
	b = append(b, `,"event_id":`...)
	b = wire.AppendString(b, d.EventID)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(d.Attempt), 10)
	b = append(b, `,"status":`...)
	b = wire.AppendString(b, d.Status)
	b = append(b, `,"status_code":`...)
	if d.StatusCode.Valid {
		b = strconv.AppendInt(b, d.StatusCode.Int64, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error":`...)
	if d.Error.Valid {
		b = wire.AppendString(b, d.Error.String)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"next_attempt_at":`...)
	b = appendNullTime(b, sql.NullTime{Time: d.NextAt, Valid: d.Status == "pending"})
	b = append(b, `,"delivered_at":`...)
	b = appendNullTime(b, d.Delivered)
	b = append(b, `,"created_at":`...)
	b = wire.AppendTime(b, d.CreatedAt)
	return append(b, '}')
}

// newDeliveryID makes a delivery's id; ids sort by creation time.
func newDeliveryID() string {
	return "dlv_" + strings.ReplaceAll(spec.NewID(), "-", "")
}

func (s *Service) deliveries(c *gin.Context) {
	team, id := teamOf(c), c.Param("id")
	binding := query.Binding{Resource: "webhooks/" + id + "/deliveries", Team: team}
	limit, before, err := s.page(c, binding)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	bounded, cancel := edge.Bounded(c.Request.Context())
	defer cancel()
	if _, err := s.find(bounded, s.DB, team, id); err != nil {
		edge.Fail(c, err)
		return
	}
	text := deliveryColumns + ` WHERE "team_id" = ? AND "webhook_id" = ?`
	args := []any{team, id}
	if before != "" {
		text += ` AND "id" < ?`
		args = append(args, before)
	}
	answerPage(c, s, binding, limit, before, "deliveries", text+` ORDER BY "id" DESC LIMIT ?`, append(args, limit),
		scanDelivery, func(d *Delivery) string { return d.ID }, appendDelivery)
}

// test queues a delivery of a webhook.test event.
func (s *Service) test(c *gin.Context) {
	team, id := teamOf(c), c.Param("id")
	s.serveWrite(c, func(ctx context.Context, body []byte) (*engine.Answer, error) {
		if err := noMembers(body, "a test takes no members (the webhook's id is in the path)"); err != nil {
			return nil, err
		}
		if _, err := s.find(ctx, s.DB, team, id); err != nil {
			return nil, err
		}
		rnd := make([]byte, 8)
		_, _ = rand.Read(rnd)
		now := time.Now().UTC().Truncate(time.Microsecond)
		evt := "evt_test_" + hex.EncodeToString(rnd)
		b := []byte(`{"id":"` + evt + `","type":"webhook.test","occurred_at":`)
		b = wire.AppendTime(b, now)
		b = append(b, `,"team_id":`...)
		b = strconv.AppendInt(b, int64(team), 10)
		b = append(b, `,"data":{"object":{"webhook_id":`...)
		b = wire.AppendString(b, id)
		b = append(b, `}},"request_id":`...)
		b = wire.AppendString(b, edge.RequestIDFrom(ctx))
		b = append(b, `,"actor":null}`...)
		d := &Delivery{ID: newDeliveryID(), Team: team, WebhookID: id, EventID: evt, Body: string(b), Attempt: 1, Status: "pending", NextAt: now, CreatedAt: now}
		err := s.Engine.Write(ctx, false, func(ctx context.Context, w engine.Writer) error { return insertDeliveries(ctx, w, []*Delivery{d}) })
		if err != nil {
			return nil, err
		}
		return &engine.Answer{Status: http.StatusAccepted, Body: append(appendDelivery([]byte(`{"delivery":`), d), '}')}, nil
	})
}

// insertDeliveries writes pending attempts, many rows a statement.
func insertDeliveries(ctx context.Context, w engine.Writer, list []*Delivery) error {
	const per = 50
	for from := 0; from < len(list); from += per {
		part := list[from:min(from+per, len(list))]
		var b strings.Builder
		b.WriteString(`INSERT INTO "webhook_deliveries" ("id", "team_id", "webhook_id", "event_id", "body", "attempt", "status", "next_attempt_at", "created_at") VALUES `)
		args := make([]any, 0, 9*len(part))
		for i, d := range part {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, d.ID, d.Team, d.WebhookID, d.EventID, d.Body, d.Attempt, d.Status, d.NextAt, d.CreatedAt)
		}
		if _, err := w.Exec(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// Package publish publishes every event of the log to NATS JetStream, in
// the log's order, for consumers that outgrow polling the log or receiving
// webhooks.
//
// Each event goes to subject records.<team_id>.<plural>.<action> of the
// stream (created if missing, subjects records.>), with header
// Nats-Msg-Id = the event's id and, as body, the event exactly as the log
// answers it.
//
// A window of events, a page of the log, is published without waiting,
// and acknowledged as a whole. Each event but a session's first names the
// event before it (Nats-Expected-Last-Msg-Id), and JetStream stores an
// event only right after its predecessor: an event can never be stored
// after a later one, and the window's last event stored means every event
// of the window is. So only the last one asks for JetStream's
// acknowledgement (an acknowledgement each would cost the service more CPU
// than the rest of publishing); the publisher's position (a row of
// event_followers) moves past the window once it is acknowledged. A window
// that fails ends the session.
//
// A session starts after the newest event of the log the stream holds
// (read back from the stream's last messages: an event's id holds its
// number), or after the stored position if the stream holds none of them:
// a crash between JetStream's acknowledgement and the position's update,
// or a window that failed midway, republishes nothing, whatever the
// stream's duplicate window. The stream's messages past that event, if
// any, are events the log no longer has (lost in a failover that did not
// carry their commits over).
//
// One publisher at a time: on PostgreSQL each instance tries for an
// advisory lock (held by a connection of its own, which holds no
// transaction and so never holds the log back); the others wait and take
// over within a second or two of its loss. On SQLite, one per process.
// The publisher resumes by itself after a crash, a broker outage or a
// database failover.
package publish

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"records/internal/db"
	"records/internal/engine"
	"records/internal/events"
)

// Config configures the publisher, filled in by cmd/records.
type Config struct {
	// URL is the NATS server's (nats://host:4222; several, comma-separated).
	URL string
	// Stream is the JetStream stream published to, made if missing.
	Stream string
	// Window bounds the events published before their acknowledgement is
	// awaited.
	Window int
	// Poll is how often the log is read while it is idle.
	Poll time.Duration
	// AckTimeout bounds the wait for a window's acknowledgement.
	AckTimeout time.Duration
	// Retry is the wait before trying again after a failure, and between
	// tries for the publisher's lock.
	Retry time.Duration
}

// Defaults of Config.
const (
	DefaultStream     = "RECORDS"
	DefaultWindow     = 256
	DefaultPoll       = 100 * time.Millisecond
	DefaultAckTimeout = 5 * time.Second
	DefaultRetry      = time.Second
)

// Subjects is what the stream holds: every subject the publisher sends to.
const Subjects = "records.>"

// Publisher publishes the log's events to a stream.
type Publisher struct {
	cfg Config
	db  *db.DB
	log *events.Log
	lg  *slog.Logger

	nc *nats.Conn
	js jetstream.JetStream

	// on is where Run's goroutine reads the log and keeps its position
	// while it holds the lock (lease.on).
	on database

	// What publish reuses (only Run's goroutine publishes).
	subjects subjects
	body     []byte

	// What the metrics read.
	active       atomic.Bool
	pendingSince atomic.Int64 // microseconds: the oldest event read and not yet acknowledged, 0 when none
	published    prometheus.Counter
	failures     prometheus.Counter
	lag          prometheus.Histogram
}

// New makes the publisher of log's events on database; nothing is
// published until Run. The NATS connection is made here, so that a bad URL
// fails at once; a broker that is down is waited for.
func New(cfg Config, database *db.DB, log *events.Log, lg *slog.Logger) (*Publisher, error) {
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	if strings.ContainsAny(cfg.Stream, ". *>") {
		return nil, fmt.Errorf("--nats-stream %q: a stream's name has no spaces, dots, * or >", cfg.Stream)
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = DefaultAckTimeout
	}
	if cfg.Retry <= 0 {
		cfg.Retry = DefaultRetry
	}
	p := &Publisher{cfg: cfg, db: database, log: log, lg: lg, subjects: subjects{}}
	var err error
	p.nc, err = nats.Connect(cfg.URL,
		nats.Name("records"),
		nats.RetryOnFailedConnect(true), // a broker down at start is waited for
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		// While disconnected, a publish fails at once rather than waiting
		// in a buffer: the session ends and starts again once connected.
		nats.ReconnectBufSize(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			lg.Warn("publish: disconnected from NATS", "error", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { lg.Info("publish: reconnected to NATS", "server", nc.ConnectedUrlRedacted()) }),
	)
	if err != nil {
		return nil, fmt.Errorf("--nats-url: %w", err)
	}
	p.js, err = jetstream.New(p.nc)
	if err != nil {
		p.nc.Close()
		return nil, err
	}
	p.published = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "records_nats_published_total", Help: "Events published to JetStream and acknowledged (a window at a time).",
	})
	p.failures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "records_nats_publish_failures_total", Help: "Publishing sessions that failed (a broker outage, a timeout, a database error) and were started again.",
	})
	p.lag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "records_nats_publish_lag_seconds",
		Help:    "Time from an event's occurrence to JetStream's acknowledgement of it.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})
	return p, nil
}

// Collectors are the publisher's metrics.
func (p *Publisher) Collectors() []prometheus.Collector {
	return []prometheus.Collector{p.published, p.failures, p.lag,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "records_nats_publisher_active", Help: "Whether this instance is the one publishing events to NATS (1) or not (0).",
		}, func() float64 {
			if p.active.Load() {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "records_nats_behind_seconds", Help: "Age of the oldest event this instance read and JetStream has not acknowledged (0: caught up).",
		}, func() float64 {
			since := p.pendingSince.Load()
			if since == 0 || !p.active.Load() {
				return 0
			}
			return time.Since(time.UnixMicro(since)).Seconds()
		}),
	}
}

// Close closes the NATS connection; Run must have returned.
func (p *Publisher) Close() { p.nc.Close() }

// Run publishes until stop closes: it takes the publisher's lock, then
// runs sessions — each from the stream's last event, failing at the first
// error — starting a new one after Retry, until stop.
func (p *Publisher) Run(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-stop; cancel() }()
	for ctx.Err() == nil {
		release, err := p.lock(ctx)
		if err != nil || release == nil {
			if err != nil && ctx.Err() == nil {
				p.lg.Warn("publish: taking the publisher's lock", "error", err)
			}
			sleep(ctx, p.cfg.Retry)
			continue
		}
		p.lead(ctx, release)
	}
}

// lead publishes while this instance holds the lock.
func (p *Publisher) lead(ctx context.Context, l *lease) {
	defer l.release()
	p.on = l.on(p.db)
	p.active.Store(true)
	defer p.active.Store(false)
	p.lg.Info("publish: publishing events to NATS", "stream", p.cfg.Stream)
	for ctx.Err() == nil && l.held(ctx) {
		err := p.session(ctx, l)
		if ctx.Err() != nil {
			return
		}
		p.failures.Inc()
		p.lg.Warn("publish: publishing stopped; starting again", "stream", p.cfg.Stream, "in", p.cfg.Retry.String(), "error", err)
		p.notePending(ctx)
		sleep(ctx, p.cfg.Retry)
	}
}

// notePending sets, while publishing fails, the age of the oldest event
// not yet published, for records_nats_behind_seconds.
func (p *Publisher) notePending(ctx context.Context) {
	pos, err := p.stored(ctx)
	if err != nil {
		return
	}
	if page, err := p.log.PageAll(ctx, p.on, pos, 1); err == nil && len(page) == 1 {
		p.pendingSince.CompareAndSwap(0, page[0].OccurredAt)
	}
}

// database runs the publisher's statements: a db.Conn or the db.DB.
type database interface {
	engine.Reader
	Exec(ctx context.Context, text string, args ...any) (sql.Result, error)
}

// errLockLost ends a session whose instance lost the lock.
var errLockLost = errors.New("the publisher's lock was lost (its database connection ended)")

// session publishes from where the stream ends until an error (or ctx's
// end).
func (p *Publisher) session(ctx context.Context, l *lease) error {
	stream, err := p.stream(ctx)
	if err != nil {
		return err
	}
	pos, err := p.start(ctx, stream)
	if err != nil {
		return err
	}
	prev := "" // a session's first publish names no predecessor: see start
	idle, head, lastRead := false, int64(-1), time.Time{}
	for ctx.Err() == nil {
		if !l.held(ctx) {
			return errLockLost
		}
		if idle {
			// An idle log is read again once its head moves, and every
			// idleRead at least: events held back become visible without
			// it moving.
			h, err := p.head(ctx)
			if err != nil {
				return err
			}
			if h == head && time.Since(lastRead) < idleRead {
				sleep(ctx, p.cfg.Poll)
				continue
			}
			head = h
		}
		lastRead = time.Now()
		page, err := p.log.PageAll(ctx, p.on, pos, p.cfg.Window)
		if err != nil {
			return err
		}
		if idle = len(page) == 0; idle {
			p.pendingSince.Store(0)
			sleep(ctx, p.cfg.Poll)
			continue
		}
		p.pendingSince.Store(page[0].OccurredAt)
		if err := p.publish(ctx, page, prev); err != nil {
			return err
		}
		last := page[len(page)-1]
		prev, pos = p.log.ID(last.Seq), last.Position
		if err := p.store(ctx, pos); err != nil {
			return err
		}
		if len(page) < p.cfg.Window {
			sleep(ctx, p.cfg.Poll) // the log is read: let the next events gather
		}
	}
	return ctx.Err()
}

// idleRead is how often an idle log is read although its head stays.
const idleRead = time.Second

// publish sends the page's events, each after prev, and awaits the
// acknowledgement of the last (see the package's doc). One message, its
// headers and its body are reused for every event: the connection copies
// each into its buffer as it is published.
func (p *Publisher) publish(ctx context.Context, page []events.TeamEvent, prev string) error {
	last := len(page) - 1
	msg := &nats.Msg{Header: nats.Header{}}
	msgID, expected := []string{""}, []string{""}
	for i := range page {
		e := &page[i]
		id := p.log.ID(e.Seq)
		msg.Subject = p.subjects.of(e.Team, e.Type)
		p.body = p.log.Append(p.body[:0], e.Team, &e.Event)
		msg.Data = p.body
		if limit := p.nc.MaxPayload() - headroom; limit > 0 && int64(len(msg.Data)) > limit {
			msg.Data = p.tooLarge(e, len(msg.Data), limit)
		}
		msgID[0] = id
		msg.Header[jetstream.MsgIDHeader] = msgID
		if prev != "" {
			expected[0] = prev
			msg.Header[jetstream.ExpectedLastMsgIDHeader] = expected
		}
		prev = id
		if i < last {
			if err := p.nc.PublishMsg(msg); err != nil {
				return fmt.Errorf("event %s: %w", id, err)
			}
			continue
		}
		actx, cancel := context.WithTimeout(ctx, p.cfg.AckTimeout)
		_, err := p.js.PublishMsg(actx, msg)
		cancel()
		if err != nil {
			return fmt.Errorf("the window of %d events ending with %s: %w", len(page), id, err)
		}
	}
	now := time.Now()
	p.published.Add(float64(len(page)))
	for i := range page {
		p.lag.Observe(now.Sub(time.UnixMicro(page[i].OccurredAt)).Seconds())
	}
	return nil
}

// headroom is what a message's headers may take of the broker's largest
// message.
const headroom = 1024

// tooLarge is the body of an event larger than the broker takes
// (max_payload): the event with its record's id only, as the log answers
// an event whose record it cannot write out, so that publishing goes on.
func (p *Publisher) tooLarge(e *events.TeamEvent, size int, limit int64) []byte {
	p.lg.Error("publish: an event is larger than the NATS server takes (max_payload); published with its record's id only",
		"event", p.log.ID(e.Seq), "bytes", size, "limit", limit)
	bare := e.Event
	bare.Image = sql.NullString{}
	return p.log.Append(nil, e.Team, &bare)
}

// Subject is the subject of an event of team of type "<plural>.<action>".
func Subject(team int, typ string) string {
	return "records." + strconv.Itoa(team) + "." + typ
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Package replica sends reads to PostgreSQL read replicas (streaming hot
// standbys) without a client ever reading older than what it wrote.
//
// Every answer to a write carries Records-Consistency, a token holding the
// primary's position in its write-ahead log once the write committed; a
// read sent with it runs on a replica that has replayed the log that far,
// else on the primary. The service also remembers each API token's last
// write for 30 s (in process, or in Redis, shared by every instance), so a
// caller that ignores the header still reads its own writes. Replicas are
// polled for how far they have replayed; one lagging more than MaxLag, or
// down, is skipped, and a read it fails is run on the primary instead: a
// replica never costs a client an error.
//
// Only reads of records (gets, lists, exports, counts) come here (package
// engine asks Reader); writes, get-or-create, the event log and webhooks
// use the primary.
package replica

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"records/internal/db"
)

// Config configures the replicas, filled in by cmd/records.
type Config struct {
	// URLs are the replicas', postgres://… each.
	URLs []string
	// MaxLag is how far behind the primary a replica may be and still
	// serve reads.
	MaxLag time.Duration
	// Sticky is how long a token's reads must see its last write, without
	// the header.
	Sticky time.Duration
	// Poll is how often the replicas' replay positions are read.
	Poll time.Duration
	// MaxConns caps each replica's connections (0: sized for the machine).
	MaxConns int
}

// Defaults of Config.
const (
	DefaultMaxLag = 10 * time.Second
	DefaultSticky = 30 * time.Second
	DefaultPoll   = 100 * time.Millisecond
)

// Set is the primary and its replicas.
type Set struct {
	primary  *db.DB
	replicas []*member
	maxLag   time.Duration
	poll     time.Duration
	recent   recent
	log      *slog.Logger
	next     atomic.Uint64 // round robin over the replicas
	samples  *samples      // the primary's positions over time

	served    *prometheus.CounterVec
	byPrimary prometheus.Counter
	byReplica prometheus.Counter
	fallbacks *prometheus.CounterVec
	closeOnce sync.Once
}

// member is one replica and what the last poll found of it.
type member struct {
	name     string // host:port, for metrics and logs
	db       *db.DB
	replayed atomic.Uint64 // how far it had replayed at the last poll
	lag      atomic.Int64  // nanoseconds behind the primary at the last poll
	usable   atomic.Bool   // answered the last poll within MaxLag, and no read has failed on it since
	answered atomic.Bool   // answered the last poll
}

// New opens the replicas of cfg beside primary; rdb, when not nil, keeps
// the tokens' last writes for every instance. Nothing is polled until Run.
func New(cfg Config, primary *db.DB, rdb *redis.Client, log *slog.Logger) (*Set, error) {
	if !primary.Postgres() {
		return nil, fmt.Errorf("--replica-url: read replicas are PostgreSQL standbys, and the database is SQLite")
	}
	s := &Set{primary: primary, maxLag: cfg.MaxLag, poll: cfg.Poll, log: log}
	if s.maxLag <= 0 {
		s.maxLag = DefaultMaxLag
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	sticky := cfg.Sticky
	if sticky <= 0 {
		sticky = DefaultSticky
	}
	if rdb != nil {
		s.recent = newRedisRecent(rdb, sticky, log)
	} else {
		s.recent = newMemoryRecent(sticky)
	}
	// The positions kept span MaxLag and more: a replica behind all of
	// them is behind by more than MaxLag.
	s.samples = newSamples(int(s.maxLag/s.poll) + 8)
	for _, u := range cfg.URLs {
		rdb, err := db.Open(context.Background(), db.Config{URL: u, MaxConns: cfg.MaxConns, Replica: true})
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("--replica-url: %w", err)
		}
		s.replicas = append(s.replicas, &member{name: hostOf(u), db: rdb})
	}
	s.served = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "records_reads_total",
		Help: "Reads of records, by where they were served: primary or replica.",
	}, []string{"served_by"})
	s.byPrimary, s.byReplica = s.served.WithLabelValues("primary"), s.served.WithLabelValues("replica")
	s.fallbacks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "records_replica_fallbacks_total",
		Help: "Reads a replica failed, run again on the primary, by replica.",
	}, []string{"replica"})
	return s, nil
}

// hostOf names a replica by its host and port, never its password.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "replica"
}

// Close closes the replicas' connections.
func (s *Set) Close() error {
	s.closeOnce.Do(func() {
		for _, m := range s.replicas {
			m.db.Close()
		}
	})
	return nil
}

// Collectors are the replicas' metrics: each one's lag and whether it
// serves, and the reads by where they were served.
func (s *Set) Collectors() []prometheus.Collector {
	lag := prometheus.NewDesc("records_replica_lag_seconds",
		"How far a replica's replay was behind the primary at the last poll.", []string{"replica"}, nil)
	up := prometheus.NewDesc("records_replica_up",
		"1 while a replica answers and lags within --replica-max-lag (it serves reads), else 0.", []string{"replica"}, nil)
	return []prometheus.Collector{s.served, s.fallbacks, collector{descs: []*prometheus.Desc{lag, up}, collect: func(ch chan<- prometheus.Metric) {
		for _, m := range s.replicas {
			ch <- prometheus.MustNewConstMetric(lag, prometheus.GaugeValue, time.Duration(m.lag.Load()).Seconds(), m.name)
			v := 0.0
			if m.usable.Load() {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(up, prometheus.GaugeValue, v, m.name)
		}
	}}}
}

// collector is a prometheus.Collector of metrics made at each scrape.
type collector struct {
	descs   []*prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// Run polls the primary's position and the replicas' replay every Poll
// until stop closes.
func (s *Set) Run(stop <-chan struct{}) {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		s.pollOnce()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// pollTimeout bounds one poll of one server.
func (s *Set) pollTimeout() time.Duration { return max(time.Second, 5*s.poll) }

// pollOnce reads the primary's position, then each replica's replay, and
// sets each replica's lag and whether it serves.
func (s *Set) pollOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), s.pollTimeout())
	defer cancel()
	now := time.Now()
	if lsn, err := s.primary.WALPosition(ctx); err == nil {
		s.samples.add(now, lsn)
	}
	var wg sync.WaitGroup
	for _, m := range s.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.pollReplica(ctx, m)
		}()
	}
	wg.Wait()
	s.recent.sweep(now)
}

func (s *Set) pollReplica(ctx context.Context, m *member) {
	lsn, standby, err := m.db.ReplayPosition(ctx)
	if err != nil {
		if m.answered.Swap(false) {
			s.log.Warn("replica: not answering; its reads go to the primary", "replica", m.name, "error", err)
		}
		m.usable.Store(false)
		return
	}
	if !m.answered.Swap(true) {
		s.log.Info("replica: answering", "replica", m.name)
	}
	var lag time.Duration
	if standby {
		lag = s.samples.lag(time.Now(), lsn)
	} else {
		lsn = ^uint64(0) // a primary since promoted holds all it has
	}
	m.replayed.Store(lsn)
	m.lag.Store(int64(lag))
	usable := lag <= s.maxLag
	if m.usable.Swap(usable) != usable && !usable {
		s.log.Warn("replica: lagging past --replica-max-lag; its reads go to the primary", "replica", m.name, "lag", lag.String())
	}
}

// pick returns a replica that serves and has replayed the log up to need,
// taking turns among them; nil when none has.
func (s *Set) pick(need uint64) *member {
	n := len(s.replicas)
	if n == 0 {
		return nil
	}
	start := int(s.next.Add(1) % uint64(n))
	for i := range n {
		m := s.replicas[(start+i)%n]
		if m.usable.Load() && m.replayed.Load() >= need {
			return m
		}
	}
	return nil
}

// anyUsable tells whether some replica serves reads.
func (s *Set) anyUsable() bool {
	for _, m := range s.replicas {
		if m.usable.Load() {
			return true
		}
	}
	return false
}

// failed takes a replica out of service after a read failed on it, until
// its next poll finds it answering.
func (s *Set) failed(m *member, err error) {
	s.fallbacks.WithLabelValues(m.name).Inc()
	if m.usable.Swap(false) {
		s.log.Warn("replica: a read failed; it goes to the primary, as the replica's next reads until it answers again",
			"replica", m.name, "error", err)
	}
}

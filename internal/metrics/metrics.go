// Package metrics counts the server's requests for Prometheus: requests and
// their latency by route, method and status, the database pool, and the Go
// runtime and process.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"records/internal/spec"
)

// Metrics holds the server's collectors in a registry of its own.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	handles  sync.Map // key → *handle
}

type key struct {
	method, route string
	status        int
}

// handle caches the children of one label set, so that counting a request
// costs a map lookup and two atomic adds, not a label hash each time.
type handle struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// Counts are running totals the metrics read when scraped.
type Counts struct {
	// Statements run on the database, and transactions begun.
	Statements, Transactions func() int64
}

// New makes the collectors, with the pool statistics of db.
func New(db *sql.DB, counts Counts) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "records_http_requests_total",
			Help: "Requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "records_http_request_duration_seconds",
			Help:    "Time to answer a request, by route pattern, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "method", "status"}),
	}
	m.registry.MustRegister(
		m.requests, m.latency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(db, "records"),
	)
	counter := func(name, help string, f func() int64) {
		if f != nil {
			m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
				func() float64 { return float64(f()) }))
		}
	}
	counter("records_db_statements_total", "Statements run on the database (BEGIN and COMMIT not included).", counts.Statements)
	counter("records_db_transactions_total", "Transactions begun on the database.", counts.Transactions)
	return m
}

// Observe counts one answered request. Its method is one of a fixed set
// (see methodLabel) and its route a registered pattern or "unmatched", so
// that no client can grow the metrics by sending names of its own.
func (m *Metrics) Observe(method, route string, status int, d time.Duration) {
	method = methodLabel(method)
	k := key{method, route, status}
	v, ok := m.handles.Load(k)
	if !ok {
		s := strconv.Itoa(status)
		v, _ = m.handles.LoadOrStore(k, &handle{
			requests: m.requests.WithLabelValues(route, method, s),
			latency:  m.latency.WithLabelValues(route, method, s),
		})
	}
	h := v.(*handle)
	h.requests.Inc()
	h.latency.Observe(d.Seconds())
}

// methodLabel is the label of a request's method: the methods the API
// answers, or "other" for any other name a client sends, so that the
// label's values stay bounded.
func methodLabel(method string) string {
	if spec.KnownMethod(method) {
		return method
	}
	return "other"
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Register adds collectors of other packages (webhooks) to the metrics.
func (m *Metrics) Register(cs ...prometheus.Collector) { m.registry.MustRegister(cs...) }

// Reader runs a read and scans its rows, at most max; (*db.DB).Each is one.
type Reader func(ctx context.Context, max int, query string, args []any, scan func(*sql.Rows) error) error

// QueryGauge is a gauge read from the database at each scrape: the number
// query answers, or 0 when it fails or takes over 2 s, so a scrape never
// waits long on a slow database.
func QueryGauge(name, help string, read Reader, query string) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var v float64
		_ = read(ctx, 1, query, nil, func(rows *sql.Rows) error { return rows.Scan(&v) })
		return v
	})
}

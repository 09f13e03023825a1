package events

import (
	"github.com/prometheus/client_golang/prometheus"

	"records/internal/metrics"
)

// Collectors are the event log's metrics. On PostgreSQL the log answers
// only events of transactions older than the oldest one still running
// (package doc), and that oldest transaction may belong to any database of
// the server: a transaction left open anywhere holds every follower back.
// Two gauges tell an operator so, read from the database at each scrape:
//
//   - records_events_log_held_back_transactions: transactions begun since
//     the oldest one still running (0 when none is running);
//   - records_events_log_oldest_transaction_seconds: how long the oldest
//     transaction holding an id has been open, of the sessions the
//     service's role may see (all of them with pg_read_all_stats).
//
// SQLite commits in order and holds nothing back: none are registered.
func (l *Log) Collectors() []prometheus.Collector {
	if !l.DB.Postgres() {
		return nil
	}
	return []prometheus.Collector{
		metrics.QueryGauge("records_events_log_held_back_transactions",
			"Transactions begun since the oldest one still running on the PostgreSQL server, which holds the event log back.",
			l.DB.Each, `SELECT pg_snapshot_xmax(s)::text::bigint - pg_snapshot_xmin(s)::text::bigint FROM pg_current_snapshot() AS s`),
		metrics.QueryGauge("records_events_log_oldest_transaction_seconds",
			"Seconds the oldest transaction holding an id has been open on the PostgreSQL server (of the sessions this role may see).",
			l.DB.Each, `SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - MIN("xact_start")), 0)::float8 FROM pg_stat_activity `+
				`WHERE "backend_xid" IS NOT NULL AND "pid" <> pg_backend_pid()`),
	}
}

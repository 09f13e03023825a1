package events

import (
	"github.com/prometheus/client_golang/prometheus"

	"records/internal/metrics"
)

// Collectors are the event log's metrics. On PostgreSQL the log answers
// only events of transactions older than the oldest one of the service's
// database still running (horizon.go): a transaction left open there (a
// forgotten psql session, a long report) holds every follower back. Two
// gauges tell an operator so, read from the database at each scrape:
//
//   - records_events_log_held_back_transactions: transactions begun since
//     the oldest one of this database still running (0 when none is);
//   - records_events_log_oldest_transaction_seconds: how long the oldest
//     transaction of this database holding an id has been open, of the
//     sessions the service's role may see (all of them with
//     pg_read_all_stats), prepared transactions included.
//
// Transactions of other databases on the server hold nothing back and
// count in neither. SQLite commits in order and holds nothing back: none
// are registered.
func (l *Log) Collectors() []prometheus.Collector {
	if !l.DB.Postgres() {
		return nil
	}
	return []prometheus.Collector{
		metrics.QueryGauge("records_events_log_held_back_transactions",
			"Transactions begun since the oldest one of this database still running, which holds the event log back.",
			l.DB.Each, `SELECT pg_snapshot_xmax(s)::text::bigint - `+horizonOf("ARRAY("+othersSQL+")")+` FROM pg_current_snapshot() AS s`),
		metrics.QueryGauge("records_events_log_oldest_transaction_seconds",
			"Seconds the oldest transaction of this database holding an id has been open (of the sessions this role may see).",
			l.DB.Each, `SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - MIN("started")), 0)::float8 FROM (
SELECT "xact_start" AS "started" FROM pg_stat_activity WHERE "backend_xid" IS NOT NULL AND "pid" <> pg_backend_pid()
AND "datid" = (SELECT "oid" FROM pg_database WHERE "datname" = current_database())
UNION ALL
SELECT "prepared" FROM pg_prepared_xacts WHERE "database" = current_database()) AS "running"`),
	}
}

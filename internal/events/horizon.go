package events

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"records/internal/engine"
)

// The log's horizon on PostgreSQL. Transactions commit out of order, so
// the log answers only events of transactions below a horizon that no
// transaction of the service's own database still running is under: every
// event below it has committed (or never will), and every transaction to
// come gets a larger id. Transactions of other databases on the same
// server cannot write to this one's events, so they must not hold it back
// (a forgotten psql session elsewhere would freeze every follower).
//
// A read of the log therefore takes two statements. The first lists the
// ids of the transactions running in other databases — pg_stat_activity's
// backend_xid with its database, and prepared transactions with theirs;
// PostgreSQL shows both to every role, so no privilege is needed. The
// second, the read itself, takes as its horizon the smallest id its own
// snapshot sees running that the list does not name (or, when there is
// none, the snapshot's xmax). A transaction the list missed — begun
// after it, or of a session the list could not place — is taken for one
// of this database: it holds the log back, never loses from it. Because
// the list is read before the snapshot, a transaction of another database
// running at the snapshot either was running at the list, and is named,
// or began after it, after every event already answered: the horizon of
// a later read is never below an earlier one's (an answered page only
// grows), which reading both in one statement would not give (a
// transaction that ended between the snapshot and the list would be
// unplaceable, and hold a read back below what the one before answered).

// others lists the transactions running in databases other than the
// service's, as the text of a bigint array (their ids modulo 2^32, as
// pg_stat_activity shows them), for horizon; "" on SQLite.
func (l *Log) others(ctx context.Context, r engine.Reader) (string, error) {
	if !l.DB.Postgres() {
		return "", nil
	}
	var ids []string
	err := r.Each(ctx, -1, othersSQL, nil, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, strconv.FormatInt(id, 10))
		return err
	})
	return "{" + strings.Join(ids, ",") + "}", err
}

// othersSQL reads pg_stat_activity before pg_prepared_xacts: a transaction
// being prepared is listed among the prepared ones before its session lets
// go of it, so it cannot slip between the two reads.
const othersSQL = `SELECT "backend_xid"::text::bigint FROM pg_stat_activity
WHERE "backend_xid" IS NOT NULL AND "datid" <> (SELECT "oid" FROM pg_database WHERE "datname" = current_database())
UNION ALL
SELECT "transaction"::text::bigint FROM pg_prepared_xacts WHERE "database" <> current_database()`

// horizonSQL is the horizon of a read whose ? is others' list.
var horizonSQL = horizonOf(`?::bigint[]`)

// horizonOf is the horizon given the list of others, a bigint array: the
// least id the statement's snapshot sees running, of transactions the list
// does not name, or the snapshot's xmax when there is none.
func horizonOf(others string) string {
	return `(SELECT COALESCE((SELECT MIN(x::text::bigint) FROM pg_snapshot_xip(s) AS x
WHERE x::text::bigint % 4294967296 <> ALL (` + others + `)), pg_snapshot_xmax(s)::text::bigint) FROM pg_current_snapshot() AS s)`
}

// Visible is the condition that keeps a read of the log below the horizon
// (appended to a WHERE over "events", whose "txid" it names unqualified;
// "" on SQLite), and its parameters: it reads others first (through r).
func (l *Log) Visible(ctx context.Context, r engine.Reader) (string, []any, error) {
	if !l.DB.Postgres() {
		return "", nil, nil
	}
	others, err := l.others(ctx, r)
	if err != nil {
		return "", nil, err
	}
	return ` AND "txid" < ` + horizonSQL, []any{others}, nil
}

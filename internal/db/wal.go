package db

import (
	"context"
	"database/sql"
)

// Positions in PostgreSQL's write-ahead log (LSNs, as bytes from its
// start) tell how far a standby has come: a standby that has replayed the
// log up to a position holds every transaction committed before the
// primary's log reached it. Read replicas use them (package replica).

// WALPosition is the primary's current position in its log (where its
// next record goes): every transaction committed before the call is
// before it.
func (db *DB) WALPosition(ctx context.Context) (uint64, error) {
	var lsn int64
	err := db.Each(ctx, 1, `SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint`, nil,
		func(rows *sql.Rows) error { return rows.Scan(&lsn) })
	return uint64(lsn), err
}

// ReplayPosition is how far a standby has replayed its primary's log;
// standby is false when the server is a primary (a standby since promoted),
// which holds all it has.
func (db *DB) ReplayPosition(ctx context.Context) (lsn uint64, standby bool, err error) {
	var replayed sql.NullInt64
	err = db.Each(ctx, 1, `SELECT (pg_last_wal_replay_lsn() - '0/0')::bigint, pg_is_in_recovery()`, nil,
		func(rows *sql.Rows) error { return rows.Scan(&replayed, &standby) })
	return uint64(replayed.Int64), standby, err
}

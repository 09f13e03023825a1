package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"records/internal/db"
	"records/internal/query"
)

// A create sent with an Idempotency-Key, of a record that embeds nothing,
// runs as one statement, autocommitted, where the transaction path
// (idempotency.go) takes six round trips. On PostgreSQL:
//
//	WITH "l" AS (SELECT pg_try_advisory_xact_lock(key) AS "got"),
//	     "r" AS (INSERT INTO <table> … WHERE <the create's conditions>
//	             AND NOT EXISTS (SELECT 1 FROM "idempotency_keys" WHERE "id" = key AND "expires_at" > now)
//	             AND (SELECT "got" FROM "l") RETURNING …),
//	     "k" AS (INSERT INTO "idempotency_keys" (…, "image", …) SELECT …, row_to_json("r") FROM "r")
//	SELECT … FROM "r"
//
// It writes the record and its key together or neither. It writes
// nothing when the key is held by a request still running, when the key
// has an answer stored, or when a parent named is missing; and it fails,
// writing nothing, when a key committed after the statement's snapshot
// (its primary key conflicts) or the record's id is taken. In every such
// case the request goes down the transaction path, which answers it as
// it answers every keyed write: 409 while the key is held, the replay or
// 422 for a stored key, the problem otherwise. So the statement is a fast
// path only, and can never decide differently than the transaction would.
//
// On SQLite the key is kept on the creation's event instead: the create
// alone, conditioned on the key being free in both places, sets
// records.key and records.key_fingerprint for the creation's trigger,
// which writes them on the event row it writes anyway (package gen). The
// commit then writes one page more than an unkeyed create's (the partial
// index of keys), where a row of idempotency_keys cost three (its table,
// its primary key, its expiry index). The key lives as long as the
// idempotency TTL after the event; the retention sweep keeps events at
// least that long. SQLite runs one write at a time in the process, and a
// statement sees every commit before it, so the key needs no lock nor
// uniqueness there.
//
// The key keeps the record's row as JSON instead of the rendered answer,
// which the statement cannot make; a replay renders it as an event's record
// is rendered (image.go), so it answers the same bytes.

// insertKeyWithImage begins the PostgreSQL statement's storing of the key.
const insertKeyWithImage = `INSERT INTO "idempotency_keys" ("id", "fingerprint", "status", "body", "image", "created_at", "expires_at") `

// keyedCreate is a keyed create's key, for the statement above: since is
// the oldest event (in microseconds) whose key is still live.
type keyedCreate struct {
	lock         int64
	id, fp       string
	now, expires time.Time
	since        int64
}

type keyedKey struct{}

// keyedFrom returns the key of a create to run as one statement, if any.
func keyedFrom(ctx context.Context) *keyedCreate {
	k, _ := ctx.Value(keyedKey{}).(*keyedCreate)
	return k
}

// errTakeTransaction: the one-statement keyed create did not write; the
// transaction path answers the request.
var errTakeTransaction = errors.New("the keyed create takes the transaction path")

// keyOnEvent finds the event a live key is kept on (SQLite; the arguments
// are the key's id and the oldest live event's time).
const keyOnEvent = ` FROM "events" WHERE "idempotency_key" = ? AND "occurred_at" > ?`

// createKeyed runs the create of in for team with its key in one
// statement, as above.
func (op *Op[E]) createKeyed(ctx context.Context, s *Service, k *keyedCreate, in Input[E], team int) (*Result[E], error) {
	postgres := s.Dialect == query.Postgres
	free := &condition{text: ` AND NOT EXISTS (SELECT 1 FROM "idempotency_keys" WHERE "id" = ? AND "expires_at" > ?)`, args: []any{k.id, k.now}}
	if postgres {
		free.text += ` AND (SELECT "got" FROM "l")`
	} else {
		free.text += ` AND NOT EXISTS (SELECT 1` + keyOnEvent + `) AND set_config('records.key', ?, 1) IS NOT NULL AND set_config('records.key_fingerprint', ?, 1) IS NOT NULL`
		free.args = append(free.args, k.id, k.since, k.id, k.fp)
	}
	_, text, args, _ := insertStatement(ctx, s, op.Res, in, team, true, free)
	if postgres {
		text = `WITH "l" AS (SELECT pg_try_advisory_xact_lock(?) AS "got"), "r" AS (` + text +
			`), "k" AS (` + insertKeyWithImage + `SELECT ?, ?, 201, '', convert_to(row_to_json("r")::text, 'UTF8'), ?, ? FROM "r") SELECT ` + op.Res.selectList() + ` FROM "r"`
		args = slices.Concat([]any{k.lock}, args, []any{k.id, k.fp, k.now, k.expires})
	}
	var rec *E
	err := s.Write(ctx, false, func(ctx context.Context, w Writer) (err error) {
		rec, err = writeRecord(ctx, w, op.Res, text, args)
		return err
	})
	switch {
	case errors.Is(err, db.ErrConnectionLost):
		// The statement may have been made: answered 503, for the client
		// to resend (the key then answers it once), never run again here.
		return nil, err
	case err != nil || rec == nil:
		return nil, errTakeTransaction
	}
	return op.written(ctx, s, team, rec, true)
}

// replayImage is the answer of a create whose key keeps the record's row.
func (op *Op[E]) replayImage(status int, image []byte) (*Answer, error) {
	rec, err := op.Res.scanImage(image)
	if err != nil {
		return nil, err
	}
	return op.keptAnswer(status, &Result[E]{Record: rec, ID: op.Res.ID(rec), Created: true}), nil
}

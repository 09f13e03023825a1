package publish

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"records/internal/db"
	"records/internal/events"
)

// stream returns the stream, making it if missing.
func (p *Publisher) stream(ctx context.Context) (jetstream.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.AckTimeout)
	defer cancel()
	s, err := p.js.Stream(ctx, p.cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = p.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        p.cfg.Stream,
			Description: "Every event of the records service's log, in order (records.<team_id>.<plural>.<action>).",
			Subjects:    []string{Subjects},
			Storage:     jetstream.FileStorage,
			Duplicates:  2 * time.Minute,
		})
		if err == nil {
			p.lg.Info("publish: made the stream", "stream", p.cfg.Stream, "subjects", Subjects)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the stream %s: %w", p.cfg.Stream, err)
	}
	return s, nil
}

// start is where a session begins: after the newest event of the log the
// stream holds, among its last walkBack messages, unless the stored
// position is further; else after the stored position.
func (p *Publisher) start(ctx context.Context, stream jetstream.Stream) (events.Position, error) {
	stored, err := p.stored(ctx)
	if err != nil {
		return stored, err
	}
	tctx, cancel := context.WithTimeout(ctx, p.cfg.AckTimeout)
	defer cancel()
	info, err := stream.Info(tctx)
	if err != nil {
		return stored, fmt.Errorf("the stream %s: %w", p.cfg.Stream, err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	for n, seq := 0, last; n < walkBack && seq >= first && seq > 0; n, seq = n+1, seq-1 {
		m, err := stream.GetMsg(tctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // deleted since
		}
		if err != nil {
			return stored, fmt.Errorf("the stream %s's message %d: %w", p.cfg.Stream, seq, err)
		}
		num, ok := p.log.IDs.Seq(m.Header.Get(jetstream.MsgIDHeader))
		if !ok {
			continue // not an event of this database's log
		}
		at, held, err := p.position(ctx, num)
		if err != nil {
			return stored, err
		}
		if !held {
			p.lg.Error("publish: the stream holds an event the log does not (lost in a failover?); publishing after the newest it holds",
				"stream", p.cfg.Stream, "event", p.log.ID(num))
			continue
		}
		if !after(at, stored) {
			return stored, nil
		}
		return at, p.store(ctx, at)
	}
	return stored, nil
}

// walkBack bounds the stream's messages start reads back.
const walkBack = 1000

// after tells whether a is after b in the log.
func after(a, b events.Position) bool {
	return a.TxID > b.TxID || a.TxID == b.TxID && a.Seq > b.Seq
}

// follower names the publisher's position in event_followers.
func (p *Publisher) follower() string { return "nats:" + p.cfg.Stream }

// stored reads the publisher's position (the log's start when none).
func (p *Publisher) stored(ctx context.Context) (events.Position, error) {
	var pos events.Position
	err := p.on.Each(ctx, 1, `SELECT "txid", "seq" FROM "event_followers" WHERE "id" = ?`, []any{p.follower()},
		func(rows *sql.Rows) error { return rows.Scan(&pos.TxID, &pos.Seq) })
	return pos, err
}

// store moves the publisher's position forward to pos (never back: an
// instance that lost the lock unknowingly cannot undo its successor's).
// It is a write in its turn (db.DB.Write), on the publisher's own
// connection: on SQLite one run beside the process's writers took
// SQLite's lock from under those queued for the process's, which then
// polled for it in SQLite's busy handler (a sleep of 1 ms at least).
func (p *Publisher) store(ctx context.Context, pos events.Position) error {
	return p.db.Write(ctx, false, func(*db.Writer) error {
		_, err := p.on.Exec(ctx, `INSERT INTO "event_followers" ("id", "txid", "seq") VALUES (?, ?, ?)
ON CONFLICT ("id") DO UPDATE SET "txid" = excluded."txid", "seq" = excluded."seq"
WHERE ("event_followers"."txid", "event_followers"."seq") < (excluded."txid", excluded."seq")`, p.follower(), pos.TxID, pos.Seq)
		return err
	})
}

// position is the place in the log of the event numbered seq, if the log
// holds it.
func (p *Publisher) position(ctx context.Context, seq int64) (events.Position, bool, error) {
	pos := events.Position{Seq: seq}
	found := false
	err := p.on.Each(ctx, 1, `SELECT "txid" FROM "events" WHERE "id" = ?`, []any{seq},
		func(rows *sql.Rows) error { found = true; return rows.Scan(&pos.TxID) })
	return pos, found, err
}

// head is the newest event's number: while it stays, an idle log need not
// be read again.
func (p *Publisher) head(ctx context.Context) (int64, error) {
	var n int64
	err := p.on.Each(ctx, 1, `SELECT COALESCE(MAX("id"), 0) FROM "events"`, nil, func(rows *sql.Rows) error { return rows.Scan(&n) })
	return n, err
}

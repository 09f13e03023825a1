// Package events serves the changes the database records as events (every
// create, update and delete of a record writes one, in its transaction: see
// package gen's triggers): the team's event log by cursor, each record's
// history, and the live stream.
//
// The log's order is (txid, id): the writing transaction's id, then the
// event's number. On PostgreSQL transactions commit out of order, so an
// event numbered below one already committed may still be in flight; the
// log therefore answers only events of transactions older than the oldest
// one of the service's database still running (horizon.go). Those are all
// finished, none can join them later, and every transaction that starts
// later has a larger id: a follower's cursor never passes an event that
// will later appear. SQLite commits one transaction at a time, in number
// order (txid is 0).
package events

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"records/internal/db"
	"records/internal/engine"
	"records/internal/query"
	"records/internal/wire"
)

// actions are what an event says happened to its record: deleted is its
// move to the trash, purged its erasure for good (DESIGN §17).
var actions = []string{"created", "updated", "deleted", "restored", "purged"}

// Log reads the events of the database.
type Log struct {
	DB        *db.DB
	Cursors   *query.Cursors
	Resources map[string]engine.Imager // by plural
	// Access, when set, says what a request's role may see of a record's
	// history (engine.Service.History).
	Access interface {
		History(ctx context.Context, plural, id string) (engine.Imager, error)
	}
	// Logger hears of events whose record cannot be written out (Append).
	Logger *slog.Logger
	// Bodies reads the JSON bodies of the log's reads, as the engine reads
	// every body (its MaxBody, --max-body).
	Bodies *engine.Service
	// IDs makes the ids events are answered with.
	IDs   *IDs
	types []string // every event type, sorted
}

// NewLog reads the events of database, of svc's resources; svc reads the
// bodies of its reads, and ids makes the events' ids.
func NewLog(database *db.DB, cursors *query.Cursors, svc *engine.Service, ids *IDs) *Log {
	resources := svc.Resources()
	l := &Log{DB: database, Cursors: cursors, Resources: resources, Bodies: svc, IDs: ids}
	for p := range resources {
		for _, a := range actions {
			l.types = append(l.types, p+"."+a)
		}
	}
	slices.Sort(l.types)
	return l
}

// DefaultRetention is how long events are kept unless configured.
const DefaultRetention = 30 * 24 * time.Hour

// Position is a place in a team's log: after the event (TxID, Seq).
type Position struct {
	TxID int64
	Seq  int64
}

// Before tells whether p comes before q in the log.
func (p Position) Before(q Position) bool {
	return p.TxID < q.TxID || p.TxID == q.TxID && p.Seq < q.Seq
}

// Event is one row of the log.
type Event struct {
	Position
	Type       string
	RecordID   string
	Meta       sql.NullString
	Image      sql.NullString
	OccurredAt int64 // microseconds since 1970
}

// Types lists every event type, sorted; callers do not change it.
func (l *Log) Types() []string { return l.types }

// Filter narrows a read of the log.
type Filter struct {
	Types []string // none: every type
	Since int64    // microseconds; 0: from the start
}

const columns = `SELECT "id", "txid", "type", "record_id", "meta", "image", "occurred_at" FROM "events"`

// Page reads up to limit events of team after pos.
func (l *Log) Page(ctx context.Context, team int, after Position, f Filter, limit int) ([]Event, error) {
	return l.PageIn(ctx, l.DB, team, after, f, limit)
}

// PageIn is Page read through r (a write's transaction).
func (l *Log) PageIn(ctx context.Context, r engine.Reader, team int, after Position, f Filter, limit int) ([]Event, error) {
	visible, horizon, err := l.Visible(ctx, r)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(columns + ` WHERE "team_id" = ? AND ("txid", "id") > (?, ?)` + visible)
	args := append([]any{team, after.TxID, after.Seq}, horizon...)
	if len(f.Types) > 0 {
		b.WriteString(` AND "type" IN (?` + strings.Repeat(", ?", len(f.Types)-1) + ")")
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if f.Since > 0 {
		b.WriteString(` AND "occurred_at" >= ?`)
		args = append(args, f.Since)
	}
	b.WriteString(` ORDER BY "txid", "id" LIMIT ?`)
	args = append(args, limit)
	return l.read(ctx, r, limit, b.String(), args)
}

// History reads up to limit events of the record id of a resource, after
// the event numbered seq. A record's changes are ordered by its row's lock,
// so their numbers are their order, and each is visible once committed.
func (l *Log) History(ctx context.Context, team int, plural, id string, after int64, limit int) ([]Event, error) {
	text := columns + ` WHERE "team_id" = ? AND "record_id" = ? AND "id" > ? AND "type" IN (?, ?, ?, ?, ?) ORDER BY "id" LIMIT ?`
	args := []any{team, id, after}
	for _, a := range actions {
		args = append(args, plural+"."+a)
	}
	return l.read(ctx, l.DB, limit, text, append(args, limit))
}

// Last is the position of the team's newest visible event, where a stream
// without a cursor starts.
func (l *Log) Last(ctx context.Context, team int) (Position, error) {
	return l.LastIn(ctx, l.DB, team)
}

// LastIn is Last read through r.
func (l *Log) LastIn(ctx context.Context, r engine.Reader, team int) (Position, error) {
	var p Position
	visible, horizon, err := l.Visible(ctx, r)
	if err != nil {
		return p, err
	}
	err = r.Each(ctx, 1, `SELECT "txid", "id" FROM "events" WHERE "team_id" = ?`+visible+` ORDER BY "txid" DESC, "id" DESC LIMIT 1`,
		append([]any{team}, horizon...), func(rows *sql.Rows) error { return rows.Scan(&p.TxID, &p.Seq) })
	return p, err
}

func (l *Log) read(ctx context.Context, r engine.Reader, limit int, text string, args []any) ([]Event, error) {
	out := make([]Event, 0, min(limit, 128))
	err := r.Each(ctx, limit, text, args, func(rows *sql.Rows) error {
		var e Event
		if err := rows.Scan(&e.Seq, &e.TxID, &e.Type, &e.RecordID, &e.Meta, &e.Image, &e.OccurredAt); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// ID is the id of the event numbered seq, as answered (see IDs).
func (l *Log) ID(seq int64) string { return l.IDs.ID(seq) }

// Append appends the event as JSON, as the log, the stream and webhooks
// answer it. An event whose record cannot be written out (an image no
// reader parses, a resource this binary does not serve) is answered all
// the same, its object carrying the record's id only, as a deletion's
// does, and logged as an error: no follower, page or webhook stops at it.
func (l *Log) Append(b []byte, team int, e *Event) []byte { return l.appendWith(b, team, e, nil) }

// appendWith appends the event as Append does, its record written by res
// when it is not nil (a role's view of it), else by its resource.
func (l *Log) appendWith(b []byte, team int, e *Event, res engine.Imager) []byte {
	plural, action, _ := strings.Cut(e.Type, ".")
	b = append(b, `{"id":"`...)
	b = l.IDs.Append(b, e.Seq)
	b = append(b, `","type":"`...)
	b = append(b, e.Type...)
	b = append(b, `","occurred_at":"`...)
	b = time.UnixMicro(e.OccurredAt).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","team_id":`...)
	b = strconv.AppendInt(b, int64(team), 10)
	b = append(b, `,"data":{"object":`...)
	if res == nil {
		res = l.Resources[plural]
	}
	var failed error
	switch {
	case action == "deleted" || !e.Image.Valid:
	case res == nil:
		failed = fmt.Errorf("event %d: no resource %q", e.Seq, plural)
	default:
		object := len(b)
		var err error
		if b, err = res.AppendImage(b, e.Image.String); err == nil {
			break
		}
		b = b[:object]
		failed = fmt.Errorf("event %d: %w", e.Seq, err)
	}
	if failed != nil {
		logger := l.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.Error("events: an event's record cannot be written out; answered with its id only", "team", team, "error", failed)
	}
	if action == "deleted" || !e.Image.Valid || failed != nil {
		b = append(b, `{"id":`...)
		b = wire.AppendString(b, e.RecordID)
		b = append(b, '}')
	}
	b = append(b, "},"...)
	if m := e.Meta.String; e.Meta.Valid && len(m) > 2 && m[0] == '{' {
		b = append(b, m[1:len(m)-1]...)
	} else {
		b = append(b, `"request_id":null,"actor":null`...)
	}
	return append(b, '}')
}

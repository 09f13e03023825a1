package events

import (
	"context"
	"database/sql"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/engine"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/tenant"
	"records/internal/wire"
)

// Register puts the event log, the stream and every resource's history on r.
func (l *Log) Register(r *edge.Router, stream *Stream) {
	r.HandleServices("Event", map[string]gin.HandlerFunc{spec.OpListEvents: l.serveLog, spec.OpStreamEvents: stream.serve})
	for _, plural := range slices.Sorted(maps.Keys(l.Resources)) {
		r.Handle(edge.Route{Method: http.MethodGet, Path: "/v1/" + plural + "/:id/history", Operation: "History", Kind: spec.List, Resource: "Event"},
			func(c *gin.Context) { l.serveHistory(c, plural) })
	}
}

// logBinding binds a cursor of the log to the team.
func logBinding(team int) query.Binding { return query.Binding{Resource: "events", Team: team} }

// Cursor is the cursor of the position after p.
func (l *Log) Cursor(team int, p Position) string {
	return l.Cursors.EncodeID(logBinding(team), l.IDs.SealPosition(p.TxID, p.Seq))
}

// openPosition reads the place in the log a cursor's id holds: enciphered
// (IDs.SealPosition), or as the cursors made before it held it, "tx.seq"
// in the clear (one of those still reads as it did).
func (l *Log) openPosition(id string) (Position, bool) {
	if tx, seq, found := strings.Cut(id, "."); found {
		t, err1 := strconv.ParseInt(tx, 10, 64)
		s, err2 := strconv.ParseInt(seq, 10, 64)
		return Position{TxID: t, Seq: s}, err1 == nil && err2 == nil
	}
	if s, err := strconv.ParseInt(id, 10, 64); err == nil { // a history's, made before
		return Position{Seq: s}, true
	}
	t, s, ok := l.IDs.OpenPosition(id)
	return Position{TxID: t, Seq: s}, ok
}

// ParseCursor reads a cursor of the team's log, naming member when it fails.
func (l *Log) ParseCursor(team int, member, token string) (Position, error) {
	id, err := l.Cursors.DecodeID(token, logBinding(team))
	if err != nil {
		return Position{}, problem.Member(member, "%v", err)
	}
	p, ok := l.openPosition(id)
	if !ok {
		return Position{}, problem.Member(member, "%v: it is malformed", query.ErrCursor)
	}
	return p, nil
}

func (l *Log) serveLog(c *gin.Context) {
	ctx := c.Request.Context()
	team, _ := tenant.Team(ctx)
	r, err := readRequest(c, l.Bodies, logParams)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	limit, cur, f := r.Limit(), r.Cursor(), l.filter(r)
	if err := r.Err(); err != nil {
		edge.Fail(c, err)
		return
	}
	var after Position
	if cur != "" {
		if after, err = l.ParseCursor(team, "cursor", cur); err != nil {
			edge.Fail(c, err)
			return
		}
	}
	bounded, cancel := edge.Bounded(ctx)
	defer cancel()
	// A narrowed read (since, types) that answers less than a page has
	// passed over every event up to the log's newest, matching or not:
	// its resume is there, not at its last match (or the log's start),
	// so a follower keeping only that cursor reads none again. The
	// newest is read first: every event not yet visible then comes
	// after it (see Visible).
	var head Position
	narrowed := f.Since > 0 || len(f.Types) > 0
	if narrowed {
		if head, err = l.Last(bounded, team); err != nil {
			edge.Fail(c, err)
			return
		}
	}
	page, err := l.Page(bounded, team, after, f, limit)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	resume := after
	if len(page) > 0 {
		resume = page[len(page)-1].Position
	}
	if narrowed && len(page) < limit && resume.Before(head) {
		resume = head
	}
	next, resumeCursor := "", l.Cursor(team, resume)
	if len(page) == limit {
		next = resumeCursor
	}
	l.answer(c, team, page, limit, next, resumeCursor)
}

func (l *Log) serveHistory(c *gin.Context, plural string) {
	ctx := c.Request.Context()
	team, _ := tenant.Team(ctx)
	id := c.Param("id")
	if wire.CheckID(id) != nil {
		edge.Fail(c, problem.New(problem.NotFound, "no record of %s has id %s, and none had", plural, strconv.Quote(id)))
		return
	}
	limit, cur, err := PageParams(c, l.Bodies)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	binding := query.Binding{Resource: plural + "/" + id + "/history", Team: team}
	var after int64
	if cur != "" {
		id, err := l.Cursors.DecodeID(cur, binding)
		if err != nil {
			edge.Fail(c, problem.Member("cursor", "%v", err))
			return
		}
		p, ok := l.openPosition(id)
		if !ok {
			edge.Fail(c, problem.Member("cursor", "%v: it is malformed", query.ErrCursor))
			return
		}
		after = p.Seq
	}
	bounded, cancel := edge.Bounded(ctx)
	defer cancel()
	var imager engine.Imager
	if l.Access != nil {
		// A role sees the history of a record it may read, without the
		// members it may not.
		if imager, err = l.Access.History(bounded, plural, id); err != nil {
			edge.Fail(c, err)
			return
		}
	}
	page, err := l.History(bounded, team, plural, id, after, limit)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	if len(page) == 0 && after == 0 {
		if known, err := l.known(bounded, team, plural, id); err != nil || !known {
			if err == nil {
				err = problem.New(problem.NotFound, "no record of %s has id %s, and none had", plural, strconv.Quote(id))
			}
			edge.Fail(c, err)
			return
		}
	}
	resume := after
	if len(page) > 0 {
		resume = page[len(page)-1].Seq
	}
	next, resumeCursor := "", l.Cursors.EncodeID(binding, l.IDs.SealPosition(0, resume))
	if len(page) == limit {
		next = resumeCursor
	}
	l.answerWith(c, team, page, limit, next, resumeCursor, imager)
}

// known tells whether a record of the resource has the id in the team.
func (l *Log) known(ctx context.Context, team int, plural, id string) (bool, error) {
	found := false
	err := l.DB.Each(ctx, 1, `SELECT 1 FROM `+spec.Ident(plural)+` WHERE "id" = ? AND "team_id" = ?`, []any{id, team},
		func(*sql.Rows) error { found = true; return nil })
	return found, err
}

// answer writes {"events":[…],"paging":{…}}: next is the cursor of the
// next page when this one is full, resume the position after its last
// event (the request's own when it has none), for a follower to keep.
func (l *Log) answer(c *gin.Context, team int, page []Event, limit int, next, resume string) {
	l.answerWith(c, team, page, limit, next, resume, nil)
}

// answerWith writes the page as answer does, the records of its events
// written by imager when it is not nil (a role's, without the members it
// may not read).
func (l *Log) answerWith(c *gin.Context, team int, page []Event, limit int, next, resume string, imager engine.Imager) {
	b := make([]byte, 0, 512*len(page)+128)
	b = append(b, `{"events":[`...)
	for i := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = l.appendWith(b, team, &page[i], imager)
	}
	b = append(b, `],"paging":{"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"has_more":`...)
	b = engine.AppendBool(b, next != "")
	b = append(b, `,"next_cursor":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, next...)
		b = append(b, '"')
	}
	b = append(b, `,"resume_cursor":"`...)
	b = append(b, resume...)
	b = append(b, `"}}`...)
	edge.WriteJSON(c, http.StatusOK, func(out []byte) []byte { return append(out, b...) })
}

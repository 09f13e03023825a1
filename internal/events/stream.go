package events

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/guard"
	"records/internal/tenant"
)

// Stream serves the live tail of the log as Server-Sent Events. One
// goroutine per process watches the log's head (its newest event and, on
// PostgreSQL, the horizon of horizon.go) and wakes the streams when
// it moves; each stream then reads its team's events after its position, a
// page at a time. A stream holds one page at most: a client that does not
// read blocks only its own stream, and one that has not read for
// WriteTimeout is cut off, to resume with Last-Event-ID.
type Stream struct {
	Log *Log
	// Poll is how often the head is read while anyone streams.
	Poll time.Duration
	// Heartbeat is how often an idle stream sends a comment line, so that
	// proxies and clients know it lives.
	Heartbeat time.Duration
	// WriteTimeout bounds each write to a client.
	WriteTimeout time.Duration
	// Logger reports failures to read the head.
	Logger *slog.Logger
	// Tokens verifies, every Recheck and before each page, that the
	// stream's token is still valid: one revoked or expired ends it.
	Tokens  guard.Verifier
	Recheck time.Duration

	mu        sync.Mutex
	moved     chan struct{} // closed when the head moves
	listeners atomic.Int64
}

// streamPage is how many events a stream reads at a time.
const streamPage = 100

// DefaultStream returns a stream of l with the documented timings.
func DefaultStream(l *Log, logger *slog.Logger) *Stream {
	return &Stream{Log: l, Poll: 100 * time.Millisecond, Heartbeat: 15 * time.Second, WriteTimeout: 30 * time.Second, Recheck: time.Second, Logger: logger}
}

// moves returns a channel closed at the head's next move.
func (s *Stream) moves() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.moved == nil {
		s.moved = make(chan struct{})
	}
	return s.moved
}

func (s *Stream) wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.moved != nil {
		close(s.moved)
		s.moved = nil
	}
}

// Watch reads the head every Poll while anyone streams, until stop closes.
func (s *Stream) Watch(stop <-chan struct{}) {
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	var last [2]int64
	text := `SELECT COALESCE(MAX("id"), 0), 0 FROM "events"`
	if s.Log.DB.Postgres() {
		text = `SELECT COALESCE(MAX("id"), 0), ` + horizonSQL + ` FROM "events"`
	}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if s.listeners.Load() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*s.Poll+time.Second)
		var head [2]int64
		others, err := s.Log.others(ctx, s.Log.DB)
		var args []any
		if s.Log.DB.Postgres() {
			args = []any{others}
		}
		if err == nil {
			err = s.Log.DB.Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(&head[0], &head[1]) })
		}
		cancel()
		if err != nil {
			s.Logger.Warn("events: reading the log's head", "error", err)
			continue
		}
		if head != last {
			last = head
			s.wake()
		}
	}
}

func (s *Stream) serve(c *gin.Context) {
	team, pos, f, ok := s.position(c)
	if !ok {
		return
	}
	if c.Request.Method == http.MethodHead {
		// The stream's headers, and no stream: nothing would ever be
		// read of it.
		streamHeaders(c.Writer.Header())
		c.Status(http.StatusOK)
		return
	}
	s.listeners.Add(1)
	defer s.listeners.Add(-1)

	rc := http.NewResponseController(c.Writer)
	// The stream outlives the request's time limits: the server's read
	// deadline (which would end its context) and write deadline.
	_ = rc.SetReadDeadline(time.Time{})
	streamHeaders(c.Writer.Header())
	c.Status(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.WriteTimeout))
		if _, err := c.Writer.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write([]byte(": stream of events\n\n")) {
		return
	}
	s.tail(c, team, pos, f, write)
}

// position reads the stream's request: the team, the position it starts
// after (Last-Event-ID, else cursor, else the log's newest event) and its
// filter; false when it was answered with a problem.
func (s *Stream) position(c *gin.Context) (team int, pos Position, f Filter, ok bool) {
	ctx := c.Request.Context()
	team, _ = tenant.Team(ctx)
	r, err := readRequest(c, s.Log.Bodies, streamParams)
	if err != nil {
		edge.Fail(c, err)
		return 0, pos, f, false
	}
	cur, f := r.Cursor(), s.Log.filter(r)
	if err := r.Err(); err != nil {
		edge.Fail(c, err)
		return 0, pos, f, false
	}
	switch last := c.GetHeader("Last-Event-ID"); {
	case last != "":
		pos, err = s.Log.ParseCursor(team, "Last-Event-ID", last)
	case cur != "":
		pos, err = s.Log.ParseCursor(team, "cursor", cur)
	default:
		bounded, cancel := edge.Bounded(ctx)
		pos, err = s.Log.Last(bounded, team)
		cancel()
	}
	if err != nil {
		edge.Fail(c, err)
		return 0, pos, f, false
	}
	return team, pos, f, true
}

// tail writes the team's events after pos, page after page, waiting for
// the log's head to move when it has written them all, until the client
// goes, a write fails or the token is no longer valid.
func (s *Stream) tail(c *gin.Context, team int, pos Position, f Filter, write func([]byte) bool) {
	ctx := c.Request.Context()
	beat := time.NewTicker(s.Heartbeat)
	defer beat.Stop()
	recheck := time.NewTicker(s.Recheck)
	defer recheck.Stop()
	// revoked ends the stream of a token revoked or expired since it began
	// (its client, reconnecting, is answered 401).
	revoked := func() bool {
		if s.Tokens == nil {
			return false
		}
		vctx, cancel := context.WithTimeout(ctx, s.WriteTimeout)
		defer cancel()
		return guard.Revoked(vctx, s.Tokens, c.Request)
	}
	buf := make([]byte, 0, 64<<10)
	for {
		if revoked() {
			return
		}
		moved := s.moves()
		qctx, cancel := context.WithTimeout(ctx, s.WriteTimeout)
		page, err := s.Log.Page(qctx, team, pos, f, streamPage)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				s.Logger.Warn("events: reading a stream's page", "error", err)
			}
			return
		}
		for i := range page {
			buf = s.appendMessage(buf[:0], team, &page[i])
			if !write(buf) {
				return
			}
			pos = page[i].Position
		}
		if len(page) == streamPage {
			continue
		}
		if !s.await(ctx, moved, beat.C, recheck.C, write, revoked) {
			return
		}
	}
}

// appendMessage appends the event's message: its cursor as id: and its
// JSON as data:.
func (s *Stream) appendMessage(b []byte, team int, e *Event) []byte {
	b = append(b, "id: "...)
	b = append(b, s.Log.Cursor(team, e.Position)...)
	b = append(b, "\ndata: "...)
	b = s.Log.Append(b, team, e)
	return append(b, "\n\n"...)
}

// await waits for the log's head to move (true), sending heartbeats and
// checking the token meanwhile; false when the stream is to end.
func (s *Stream) await(ctx context.Context, moved <-chan struct{}, beat, recheck <-chan time.Time, write func([]byte) bool, revoked func() bool) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-moved:
			return true
		case <-beat:
			return write([]byte(": heartbeat " + strconv.FormatInt(time.Now().Unix(), 10) + "\n\n"))
		case <-recheck:
			if revoked() {
				return false
			}
		}
	}
}

// streamHeaders are the headers of the event stream (a proxy must not
// buffer it).
func streamHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
}

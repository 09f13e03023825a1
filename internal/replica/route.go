package replica

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/engine"
	"records/internal/problem"
)

// The headers of read-your-writes.
const (
	// HeaderConsistency carries a write's token on its answer, and on a
	// read the token the read must see.
	HeaderConsistency = "Records-Consistency"
	// HeaderServedBy says where a read ran: primary or replica.
	HeaderServedBy = "Records-Served-By"
)

// Shared values of HeaderServedBy, set without allocating.
var (
	servedByPrimary = []string{"primary"}
	servedByReplica = []string{"replica"}
)

// Token writes a position in the log as a consistency token: opaque to
// clients ("1." and hexadecimal digits; the 1 is the token's version).
func Token(lsn uint64) string { return "1." + strconv.FormatUint(lsn, 16) }

// parseToken reads a consistency token.
func parseToken(s string) (uint64, bool) {
	hex, ok := strings.CutPrefix(s, "1.")
	if !ok || hex == "" || len(hex) > 16 {
		return 0, false
	}
	lsn, err := strconv.ParseUint(hex, 16, 64)
	return lsn, err == nil
}

// Reader is where the request's read runs (engine.ReadRouter): a replica
// that has replayed the log past both the request's Records-Consistency
// and its token's last write within Sticky, else the primary. It says
// which in Records-Served-By. A malformed Records-Consistency is the
// client's fault (400).
func (s *Set) Reader(c *gin.Context) (engine.Reader, error) {
	var need uint64
	if v := c.Request.Header.Get(HeaderConsistency); v != "" {
		lsn, ok := parseToken(v)
		if !ok {
			return nil, problem.Member(HeaderConsistency, "is not a token this service answered (send back the Records-Consistency of a write's answer, as it is)")
		}
		need = lsn
	}
	var m *member
	if s.anyUsable() {
		if p, ok := auth.FromContext(c.Request.Context()); ok {
			need = max(need, s.recent.need(c.Request.Context(), p.TokenID))
		}
		m = s.pick(need)
	}
	h := c.Writer.Header()
	if m == nil {
		h[HeaderServedBy] = servedByPrimary
		s.byPrimary.Inc()
		return s.primary, nil
	}
	h[HeaderServedBy] = servedByReplica
	s.byReplica.Inc()
	return &replicaReader{set: s, m: m, header: h}, nil
}

// replicaReader reads on a replica; a read that fails there before it
// scanned a row is run on the primary, and the replica is skipped until it
// answers a poll again.
type replicaReader struct {
	set    *Set
	m      *member
	header http.Header
	failed bool
}

func (r *replicaReader) Postgres() bool { return true }

func (r *replicaReader) Each(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) error {
	if r.failed {
		return r.set.primary.Each(ctx, max, text, args, scan)
	}
	scanned := false
	err := r.m.db.Each(ctx, max, text, args, func(rows *sql.Rows) error {
		scanned = true
		return scan(rows)
	})
	// Run again on the primary: a replica down, restarting or cancelling
	// the read for a conflict with its replay, while the request has time.
	if err == nil || scanned || !errors.Is(err, db.ErrUnavailable) || ctx.Err() != nil {
		return err
	}
	r.set.failed(r.m, err)
	r.failed = true
	r.header[HeaderServedBy] = servedByPrimary // unless the answer has begun (an export)
	r.set.byPrimary.Inc()
	return r.set.primary.Each(ctx, max, text, args, scan)
}

// AfterWrite is the middleware of every route that may write: an answer
// of 2xx carries Records-Consistency, the primary's position in its log
// once the write committed, and that position is remembered as the
// token's last write. Every answer says it was served by the primary.
func (s *Set) AfterWrite(c *gin.Context) {
	c.Writer.Header()[HeaderServedBy] = servedByPrimary
	w := &tokenWriter{ResponseWriter: c.Writer, set: s, c: c}
	c.Writer = w
	c.Next()
	w.before()
}

// tokenWriter adds the consistency token to a write's answer just before
// its headers go out.
type tokenWriter struct {
	gin.ResponseWriter
	set  *Set
	c    *gin.Context
	done bool
}

// tokenTimeout bounds the reading of the primary's position.
const tokenTimeout = time.Second

func (w *tokenWriter) before() {
	if w.done {
		return
	}
	w.done = true
	if status := w.ResponseWriter.Status(); status < 200 || status > 299 || w.ResponseWriter.Written() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.c.Request.Context()), tokenTimeout)
	defer cancel()
	lsn, err := w.set.primary.WALPosition(ctx)
	if err != nil {
		// The write is made; only its token is missing: a read sent
		// without one may run on a replica that has not replayed it.
		w.set.log.Warn("replica: reading the primary's position for a write's Records-Consistency", "error", err)
		return
	}
	w.Header().Set(HeaderConsistency, Token(lsn))
	if p, ok := auth.FromContext(w.c.Request.Context()); ok {
		w.set.recent.wrote(ctx, p.TokenID, lsn)
	}
}

func (w *tokenWriter) WriteHeaderNow() {
	w.before()
	w.ResponseWriter.WriteHeaderNow()
}

func (w *tokenWriter) Write(b []byte) (int, error) {
	w.before()
	return w.ResponseWriter.Write(b)
}

func (w *tokenWriter) WriteString(s string) (int, error) {
	w.before()
	return w.ResponseWriter.WriteString(s)
}

func (w *tokenWriter) Flush() {
	w.before()
	w.ResponseWriter.Flush()
}

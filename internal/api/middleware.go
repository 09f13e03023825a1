package api

import (
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"records/internal/auth"
	"records/internal/problem"
	"records/internal/wire"
)

// validRequestID is what a client's X-Request-Id must look like to be kept.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID gives every request an id — the client's X-Request-Id when it
// is sensible, else a new one — and answers it in X-Request-Id, where the
// access log and problems read it back.
func RequestID(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if !validRequestID.MatchString(id) {
		id = requestIDs.next()
	}
	c.Writer.Header()["X-Request-Id"] = []string{id}
}

// requestID returns the request's id.
func requestID(c *gin.Context) string { return c.Writer.Header().Get("X-Request-Id") }

// idSource makes request ids: a random prefix drawn once per process and a
// counter, so ids are unique across instances and restarts without reading
// the system's randomness on every request.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

var requestIDs = func() *idSource {
	return &idSource{prefix: strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")[:20] + "-"}
}()

func (s *idSource) next() string {
	var b [40]byte
	out := append(b[:0], s.prefix...)
	return string(strconv.AppendUint(out, s.n.Add(1), 36))
}

// AccessLog writes one JSON line per request to w, in the shape of the
// server's other log lines (slog's JSON): time, level, msg, then request_id,
// route (method and pattern), status, latency_ms and team; for a problem its
// code, and for a server error its cause. Never a token, a secret or a body.
// The line is built by hand in a pooled buffer and written at once: slog's
// generic attributes cost as much as the rest of a cached read. observe,
// when not nil, is told of every answered request too (for metrics).
func AccessLog(w io.Writer, observe func(method, route string, status int, d time.Duration)) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		elapsed := time.Since(start)
		status := c.Writer.Status()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		if observe != nil {
			observe(c.Request.Method, route, status, elapsed)
		}
		level := "INFO"
		var prob *problem.Error
		if v, ok := c.Get(KeyProblem); ok {
			prob = v.(*problem.Error)
			if status >= 500 {
				level = "ERROR"
			}
		}
		buf := getBuffer()
		b := append(buf.b, `{"time":"`...)
		b = start.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, `","level":"`...)
		b = append(b, level...)
		b = append(b, `","msg":"request","request_id":`...)
		b = wire.AppendString(b, requestID(c))
		b = append(b, `,"route":"`...)
		b = wire.AppendStringContent(b, c.Request.Method)
		b = append(b, ' ')
		b = wire.AppendStringContent(b, route)
		b = append(b, '"')
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `,"latency_ms":`...)
		b = strconv.AppendFloat(b, float64(elapsed.Microseconds())/1000, 'f', -1, 64)
		if p, ok := auth.FromContext(c.Request.Context()); ok {
			b = append(b, `,"team":`...)
			b = strconv.AppendInt(b, int64(p.Team), 10)
		}
		if prob != nil {
			b = append(b, `,"code":`...)
			b = wire.AppendString(b, string(prob.Code))
			if status >= 500 && prob.Cause != nil {
				b = append(b, `,"error":`...)
				b = wire.AppendString(b, prob.Cause.Error())
			}
		}
		buf.b = append(b, "}\n"...)
		_, _ = w.Write(buf.b)
		putBuffer(buf)
	}
}

// Recover turns a panic into a 500 problem; the stack goes to the log only.
func Recover(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			Fail(c, problem.Wrap(fmt.Errorf("panic: %v\n%s", r, debug.Stack())))
		}
	}()
	c.Next()
}

package edge

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/problem"
)

// AccessLog logs one line per request through log's handler: request_id,
// route (method and pattern), status, latency_ms and team; for a problem
// its code, and for a server error its cause (at level ERROR). Never a
// token, a secret or a body. observe, when not nil, is told of every
// answered request too (for metrics). With sample > 1, one successful
// request's line in sample is written (the rest are counted only); every
// request answered 4xx or 5xx is logged.
//
// The record goes to the handler directly, without the caller's program
// counter that slog.Logger captures for every record (a stack walk that
// costs about 5% of a cached read's throughput); a successful request's
// record has five attributes, as many as slog keeps without allocating.
func AccessLog(log *slog.Logger, observe func(method, route string, status int, d time.Duration), sample int) gin.HandlerFunc {
	h := log.Handler()
	a := &accessLog{h: h, observe: observe, sample: uint64(max(sample, 1))}
	return func(c *gin.Context) {
		start := time.Now()
		// Deferred, so that a request cut short by a panic is logged too.
		defer a.logRequest(c, start)
		c.Next()
	}
}

type accessLog struct {
	h       slog.Handler
	observe func(method, route string, status int, d time.Duration)
	sample  uint64
	n       atomic.Uint64 // successful requests seen, for sampling
}

// logRequest writes the access line of a request that has been answered
// (or cut short: an export failing midway has answered 200, but its
// problem is a server's, logged as one).
func (a *accessLog) logRequest(c *gin.Context, start time.Time) {
	h, observe := a.h, a.observe
	elapsed := time.Since(start)
	status := c.Writer.Status()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	level := slog.LevelInfo
	var prob *problem.Error
	if v, ok := c.Get(KeyProblem); ok {
		prob = v.(*problem.Error)
		if prob.Code.Status() >= 500 {
			level = slog.LevelError
		}
		// What the request ended with, though an answer cut short (an
		// export the client hung up on, or that failed midway) had sent
		// its 200 already.
		status = prob.Code.Status()
	}
	if observe != nil {
		observe(c.Request.Method, route, status, elapsed)
	}
	if status < 400 && prob == nil && a.sample > 1 && a.n.Add(1)%a.sample != 0 {
		return
	}
	ctx := c.Request.Context()
	if !h.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(start, level, "request", 0)
	r.AddAttrs(
		slog.String("request_id", RequestIDOf(c)),
		slog.String("route", c.Request.Method+" "+route),
		slog.Int("status", status),
		slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000),
	)
	if p, ok := auth.FromContext(ctx); ok {
		r.AddAttrs(slog.Int("team", p.Team))
	}
	if prob != nil {
		r.AddAttrs(slog.String("code", string(prob.Code)))
		if level == slog.LevelError && prob.Cause != nil {
			r.AddAttrs(slog.String("error", prob.Cause.Error()))
		}
	}
	_ = h.Handle(ctx, r)
}

// Recover turns a panic into a 500 problem; the stack goes to the log only.
// http.ErrAbortHandler, a handler's way of cutting an answer short, goes on
// to net/http, which drops the connection.
func Recover(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			Fail(c, problem.Wrap(fmt.Errorf("panic: %v\n%s", r, debug.Stack())))
		}
	}()
	c.Next()
}

package api

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"records/internal/problem"
)

// validRequestID is what a client's X-Request-Id must look like to be kept.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID gives every request an id — the client's X-Request-Id when it
// is sensible, else a new UUIDv7 — and answers it in X-Request-Id.
func RequestID(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if !validRequestID.MatchString(id) {
		id = uuid.Must(uuid.NewV7()).String()
	}
	c.Set(KeyRequestID, id)
	c.Writer.Header().Set("X-Request-Id", id)
}

// AccessLog writes one JSON line per request: id, method, route, status,
// latency and team; the problem's code, and for server errors its cause.
// Never a token, a secret or a body.
func AccessLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		attrs := []slog.Attr{
			slog.String("request_id", c.GetString(KeyRequestID)),
			slog.String("method", c.Request.Method),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
			slog.Int("bytes", c.Writer.Size()),
		}
		if team, ok := c.Get(KeyTeam); ok {
			attrs = append(attrs, slog.Any("team", team))
		}
		level := slog.LevelInfo
		if v, ok := c.Get(KeyProblem); ok {
			p := v.(*problem.Error)
			attrs = append(attrs, slog.String("code", string(p.Code)))
			if status >= 500 {
				level = slog.LevelError
				if p.Cause != nil {
					attrs = append(attrs, slog.String("error", p.Cause.Error()))
				}
			}
		}
		log.LogAttrs(c.Request.Context(), level, "request", attrs...)
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

// Deadline bounds the time a request may take; work past it (a slow
// query) is cancelled and the request answered 503.
func Deadline(d time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), d)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
		c.Next()
	}
}

package api

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/tenant"
)

// requestCtx is an authenticated request's context: the principal, its team
// (answered under tenant's key) and the request's deadline, in one value.
//
// The deadline is kept as a time, not as a timer: a timer per request costs
// a tenth of a cached read, and most requests never wait on anything it
// could interrupt. bounded turns it into a real deadline where waiting can
// happen: around transactions, and queries to a database across the network.
type requestCtx struct {
	context.Context
	p        auth.Principal
	deadline time.Time
}

type deadlineKey struct{}

func (c *requestCtx) Value(key any) any {
	switch key.(type) {
	case auth.Key:
		return c.p
	case tenant.Key:
		return c.p.Team
	case deadlineKey:
		return c.deadline
	}
	return c.Context.Value(key)
}

// errDeadline is a request past its deadline before it got to the database.
var errDeadline = context.DeadlineExceeded

// bounded returns ctx with the request's deadline in force.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(deadlineKey{}).(time.Time); ok {
		return context.WithDeadline(ctx, d)
	}
	return ctx, func() {}
}

// readContext prepares ctx for a plain read. Where reads are interrupted
// (PostgreSQL) it bounds ctx; where they are not (SQLite: in process,
// indexed, a page at most), it checks the deadline and detaches the read from
// cancellation, sparing the goroutine database/sql and the driver would each
// start to watch a cancellable context.
func (s *Service) readContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.InterruptReads {
		ctx, cancel := bounded(ctx)
		return ctx, cancel, nil
	}
	if d, ok := ctx.Value(deadlineKey{}).(time.Time); ok && !time.Now().Before(d) {
		return nil, nil, errDeadline
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return context.WithoutCancel(ctx), func() {}, nil
}

// Deadline bounds the time a public request may take; authenticated
// requests carry theirs in their context instead (see requestCtx).
func Deadline(d time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), d)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
		c.Next()
	}
}

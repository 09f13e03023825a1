package edge

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
// could interrupt. Bounded turns it into a real deadline where waiting can
// happen: around transactions, and queries to a database across the network.
type requestCtx struct {
	context.Context
	p         auth.Principal
	deadline  time.Time
	requestID string
}

type (
	deadlineKey  struct{}
	requestIDKey struct{}
)

// Value answers the request's own keys with pointers into c, which an
// interface holds without allocating (the principal is looked up five
// times a request).
func (c *requestCtx) Value(key any) any {
	switch key.(type) {
	case auth.Key:
		return &c.p
	case tenant.Key:
		return c.p.Team
	case deadlineKey:
		return &c.deadline
	case requestIDKey:
		return &c.requestID
	}
	return c.Context.Value(key)
}

// Authenticated returns ctx acting for principal p in the request with the
// id, with the request's deadline (not yet in force: see Bounded).
func Authenticated(ctx context.Context, p auth.Principal, deadline time.Time, requestID string) context.Context {
	return &requestCtx{Context: ctx, p: p, deadline: deadline, requestID: requestID}
}

// RequestIDFrom returns the id of the authenticated request of ctx.
func RequestIDFrom(ctx context.Context) string {
	if id, ok := ctx.Value(requestIDKey{}).(*string); ok {
		return *id
	}
	return ""
}

// Bounded returns ctx with the request's deadline in force.
func Bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(deadlineKey{}).(*time.Time); ok {
		return context.WithDeadline(ctx, *d)
	}
	return ctx, func() {}
}

// Unbounded prepares ctx for work that will not be interrupted (in-process
// SQLite reads: indexed, a page at most): it fails when the request's
// deadline has passed or its context has ended, and otherwise detaches the
// work from cancellation, sparing the goroutine database/sql and the driver
// would each start to watch a cancellable context.
func Unbounded(ctx context.Context) (context.Context, error) {
	if d, ok := ctx.Value(deadlineKey{}).(*time.Time); ok && !time.Now().Before(*d) {
		return nil, context.DeadlineExceeded
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &detached{ctx}, nil
}

// detached is a context without its parent's cancellation, as
// context.WithoutCancel makes one, but a pointer: the standard one is a
// value, boxed anew by each of its Value lookups — an allocation per
// lookup on every SQLite read (the team, the role's access).
type detached struct{ parent context.Context }

func (d *detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (d *detached) Done() <-chan struct{}       { return nil }
func (d *detached) Err() error                  { return nil }
func (d *detached) Value(key any) any           { return d.parent.Value(key) }

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

package edge

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"records/internal/db"
	"records/internal/problem"
)

// KeyProblem holds, on the gin context, the problem a request failed with,
// for the access log.
const KeyProblem = "records.problem"

// retryAfterUnavailable is the Retry-After of a 503, in seconds.
const retryAfterUnavailable = 5

// retryAfterLost is the Retry-After of a 503 for a lost connection: a
// failover promotes a standby within seconds.
const retryAfterLost = 2

// Fail answers the request with err as problem+json and stops the chain.
// It is the one place that turns errors into responses; the access log
// reads the problem back (with its cause, for internal ones).
func Fail(c *gin.Context, err error) {
	var p *problem.Error
	if errors.As(err, &p) && p.Code == problem.RequestTimeout {
		// The body's read timed out, which ended the request's context as
		// a hang-up does; but the client is there, and is answered. Its
		// connection cannot read another request.
		c.Header("Connection", "close")
	} else if c.Request.Context().Err() == context.Canceled {
		// The client hung up: not a fault of the server, and nobody to
		// answer. Logged and counted as 499.
		c.Set(KeyProblem, &problem.Error{Code: problem.ClientClosed, Cause: err})
		c.Status(problem.ClientClosed.Status())
		c.Abort()
		return
	}
	p = ToProblem(err)
	c.Set(KeyProblem, p)
	h := c.Writer.Header()
	h.Set("Content-Type", "application/problem+json")
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	if len(p.Allow) > 0 {
		h.Set("Allow", strings.Join(p.Allow, ", "))
	}
	if p.Code == problem.Unauthenticated {
		if p.InvalidToken {
			h.Set("WWW-Authenticate", `Bearer realm="records", error="invalid_token"`)
		} else {
			h.Set("WWW-Authenticate", `Bearer realm="records"`)
		}
	}
	buf := GetBuffer()
	buf.B = problem.Append(buf.B, p, RequestIDOf(c))
	c.Status(p.Code.Status())
	_, _ = c.Writer.Write(buf.B)
	PutBuffer(buf)
	c.Abort()
}

// ToProblem classifies any error. Problems pass through; the database's
// typed errors (package db) become the matching status; anything else is
// internal, its text kept for the log and never sent.
func ToProblem(err error) *problem.Error {
	var p *problem.Error
	if errors.As(err, &p) {
		return p
	}
	err = db.Classify(nil, err)
	switch {
	case errors.Is(err, db.ErrMissingParent):
		return problem.New(problem.InvalidRequest, "a record this one names does not exist")
	case errors.Is(err, db.ErrBadValue):
		return &problem.Error{Code: problem.InvalidRequest, Detail: "a value sent cannot be stored: text must be valid Unicode without NUL characters, numbers within range", Cause: err}
	case errors.Is(err, db.ErrConnectionLost):
		// The server went away or stopped being the primary (a failover):
		// a write in flight may or may not have been made, and is never
		// sent again by the server; the client resends it with its
		// Idempotency-Key, which answers it once either way.
		return &problem.Error{Code: problem.Unavailable, RetryAfter: retryAfterLost, Cause: err,
			Detail: "the connection to the database was lost; a write may or may not have been made: send it again with the same Idempotency-Key"}
	case errors.Is(err, db.ErrUnavailable), errors.Is(err, db.ErrCanceled):
		return &problem.Error{Code: problem.Unavailable, Detail: "the database is unavailable; try again shortly", RetryAfter: retryAfterUnavailable, Cause: err}
	}
	return problem.Wrap(err)
}

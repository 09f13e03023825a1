package api

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"

	"github.com/gin-gonic/gin"
	"github.com/lib/pq"

	"records/ent"
	"records/internal/problem"
	"records/internal/wire"
)

// Errors generated decoders return for a member.
var (
	// ErrUnknownMember: the resource has no member of that name.
	ErrUnknownMember = errors.New("unknown member")
	// ErrReadOnly: the member is answered but never written by clients.
	ErrReadOnly = errors.New("is read-only")
)

// KeyProblem holds, on the gin context, the problem a request failed with,
// for the access log.
const KeyProblem = "records.problem"

// retryAfterUnavailable is the Retry-After of a 503, in seconds.
const retryAfterUnavailable = 5

// Fail answers the request with err as problem+json and stops the chain.
// It is the one place that turns errors into responses; the access log
// reads the problem back (with its cause, for internal ones).
func Fail(c *gin.Context, err error) {
	p := toProblem(err)
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
		h.Set("WWW-Authenticate", `Bearer realm="records"`)
	}
	buf := getBuffer()
	buf.b = appendProblem(buf.b, p, requestID(c))
	c.Status(p.Code.Status())
	_, _ = c.Writer.Write(buf.b)
	putBuffer(buf)
	c.Abort()
}

// toProblem classifies any error. Problems pass through; ent's and the
// database's errors become the matching status; anything else is internal,
// its text kept for the log and never sent.
func toProblem(err error) *problem.Error {
	var p *problem.Error
	if errors.As(err, &p) {
		return p
	}
	var nf *ent.NotFoundError
	var ve *ent.ValidationError
	switch {
	case errors.As(err, &nf):
		return problem.New(problem.NotFound, "no such record")
	case errors.As(err, &ve):
		return problem.Member(ve.Name, "%s", strings.TrimPrefix(ve.Error(), "ent: validator failed for field "))
	case unavailable(err):
		return &problem.Error{Code: problem.Unavailable, Detail: "the database is unavailable; try again shortly", RetryAfter: retryAfterUnavailable, Cause: err}
	}
	return problem.Wrap(err)
}

// unavailable tells whether err means the database cannot be reached or is
// busy, as opposed to a fault in the request or the program.
func unavailable(err error) bool {
	var (
		netErr *net.OpError
		pqErr  *pq.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.As(err, &netErr):
		return true
	case errors.As(err, &pqErr):
		// Class 08: connection exceptions; 57P: operator intervention
		// (shutdown, cannot connect now); 53: insufficient resources.
		code := string(pqErr.Code)
		return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57P") || strings.HasPrefix(code, "53")
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "bad connection")
}

// appendProblem writes an RFC 9457 problem document.
func appendProblem(b []byte, p *problem.Error, requestID string) []byte {
	status := p.Code.Status()
	detail := p.Detail
	if detail == "" || p.Code == problem.Internal {
		detail = defaultDetail(p.Code)
	}
	b = append(b, `{"type":`...)
	b = wire.AppendString(b, "/docs#problem-"+string(p.Code))
	b = append(b, `,"title":`...)
	b = wire.AppendString(b, p.Code.Title())
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"detail":`...)
	b = wire.AppendString(b, detail)
	b = append(b, `,"code":`...)
	b = wire.AppendString(b, string(p.Code))
	b = append(b, `,"success":0,"request_id":`...)
	b = wire.AppendString(b, requestID)
	b = append(b, `,"errors":[`...)
	for i, m := range p.Members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"member":`...)
		b = wire.AppendString(b, m.Member)
		b = append(b, `,"problem":`...)
		b = wire.AppendString(b, m.Problem)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func defaultDetail(c problem.Code) string {
	if c == problem.Internal {
		return "the server failed to answer; the request id identifies the failure in the server's log"
	}
	return http.StatusText(c.Status())
}

// notFound is the 404 of a resource's record.
func notFound(object, id string) *problem.Error {
	return problem.New(problem.NotFound, "no %s has id %s", object, strconv.Quote(id))
}

// conflict classifies a constraint error from a write: a unique value
// already taken is a 409 naming the member; a foreign key pointing nowhere
// (a parent deleted meanwhile) is a 400. unique maps columns to members.
func conflict(err error, unique map[string]string) *problem.Error {
	msg := err.Error()
	var pqErr *pq.Error
	constraint := ""
	if errors.As(err, &pqErr) {
		constraint = pqErr.Constraint
	}
	if strings.Contains(msg, "FOREIGN KEY") || strings.Contains(msg, "foreign key") {
		return problem.New(problem.InvalidRequest, "a record this one names does not exist")
	}
	// SQLite: "UNIQUE constraint failed: users.team_id, users.username";
	// PostgreSQL names the constraint: "customers_pkey", "user_team_id_username".
	member := "id"
	for col, m := range unique {
		if col == "id" {
			continue
		}
		if strings.Contains(msg, "."+col) || strings.HasSuffix(constraint, "_"+col) {
			member = m
		}
	}
	return &problem.Error{
		Code:    problem.Conflict,
		Detail:  fmt.Sprintf("%s: the value is already taken", member),
		Members: []problem.MemberError{{Member: member, Problem: "is already taken"}},
	}
}

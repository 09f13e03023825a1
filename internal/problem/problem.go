// Package problem holds the service's one error type: an RFC 9457 problem
// with a stable code and the members of the request at fault. Handlers and
// the runtime return these; package edge turns every error into a response
// in one place, with Append writing the document.
package problem

import (
	"fmt"
	"strings"

	"records/internal/spec"
)

// Code is the stable, machine-readable kind of a problem; one per status.
// The codes are declared in package spec, which the generator reads too.
type Code = spec.Code

// The codes of the contract, in the order of their statuses.
const (
	InvalidJSON          = spec.InvalidJSON
	InvalidRequest       = spec.InvalidRequest
	Unauthenticated      = spec.Unauthenticated
	Forbidden            = spec.Forbidden
	NotFound             = spec.NotFound
	MethodNotAllowed     = spec.MethodNotAllowed
	RequestTimeout       = spec.RequestTimeout
	Conflict             = spec.Conflict
	KeyInUse             = spec.KeyInUse
	PreconditionFailed   = spec.PreconditionFailed
	PayloadTooLarge      = spec.PayloadTooLarge
	UnsupportedMediaType = spec.UnsupportedMediaType
	KeyReused            = spec.KeyReused
	RateLimited          = spec.RateLimited
	Internal             = spec.Internal
	Unavailable          = spec.Unavailable
	ClientClosed         = spec.ClientClosed
)

// MemberError names one member of the request and what is wrong with it.
// Member is a path into the body: "limit", "work_order_line_items[2].sku",
// or a query parameter or path parameter by its name.
type MemberError struct {
	Member  string `json:"member"`
	Problem string `json:"problem"`
}

// Error is a problem the client can act on, or an internal one.
type Error struct {
	Code    Code
	Detail  string
	Members []MemberError
	// RetryAfter, in seconds, is sent as Retry-After when positive.
	RetryAfter int
	// Allow lists the methods of a 405.
	Allow []string
	// InvalidToken marks a 401 for a bearer token that failed a check
	// (a JWT): its WWW-Authenticate says error="invalid_token" (RFC 6750).
	InvalidToken bool
	// Cause is the underlying error of an internal problem; logged, never sent.
	Cause error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	for _, m := range e.Members {
		fmt.Fprintf(&b, "; %s: %s", m.Member, m.Problem)
	}
	if e.Cause != nil {
		b.WriteString(": " + e.Cause.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Cause }

// New makes a problem with a detail message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Member makes a 400 naming one member at fault; the detail says the same.
func Member(member, format string, args ...any) *Error {
	p := fmt.Sprintf(format, args...)
	return &Error{
		Code:    InvalidRequest,
		Detail:  fmt.Sprintf("%s: %s", member, p),
		Members: []MemberError{{Member: member, Problem: p}},
	}
}

// Members makes a 400 naming several members at fault.
func Members(errs []MemberError) *Error {
	if len(errs) == 1 {
		return Member(errs[0].Member, "%s", errs[0].Problem)
	}
	if Full(errs) {
		return &Error{
			Code:    InvalidRequest,
			Detail:  fmt.Sprintf("more than %d members are invalid; the first %d are listed", MaxMembers, MaxMembers),
			Members: errs, // the answer lists MaxMembers of them
		}
	}
	return &Error{
		Code:    InvalidRequest,
		Detail:  fmt.Sprintf("%d members are invalid", len(errs)),
		Members: errs,
	}
}

// MaxMembers bounds the members at fault a problem lists. A body of a
// megabyte can hold a hundred thousand unknown members; listing each, with
// the name it may have meant, would cost the server a second and the
// client megabytes.
const MaxMembers = 100

// Full tells whether errs holds more members than a problem lists: whoever
// collects them may stop looking (Members says there were more).
func Full(errs []MemberError) bool { return len(errs) > MaxMembers }

// Wrap makes an internal problem around cause. Its text is never sent.
func Wrap(cause error) *Error { return &Error{Code: Internal, Cause: cause} }

// Prefix returns the error with every member path under parent: "sku"
// under "work_order_line_items[2]" becomes "work_order_line_items[2].sku",
// and "[2].sku" under "work_order_line_items" joins without a dot. Other
// errors pass through.
func Prefix(err error, parent string) error {
	pe, ok := err.(*Error)
	if !ok || len(pe.Members) == 0 {
		return err
	}
	out := *pe
	out.Members = make([]MemberError, len(pe.Members))
	for i, m := range pe.Members {
		sep := "."
		if strings.HasPrefix(m.Member, "[") {
			sep = ""
		}
		out.Members[i] = MemberError{Member: parent + sep + m.Member, Problem: m.Problem}
	}
	if len(out.Members) == 1 {
		out.Detail = out.Members[0].Member + ": " + out.Members[0].Problem
	}
	return &out
}

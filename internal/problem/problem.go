// Package problem holds the service's one error type: an RFC 9457 problem
// with a stable code and the members of the request at fault. Handlers and
// the runtime return these; package api renders every error in one place.
package problem

import (
	"fmt"
	"net/http"
	"strings"
)

// Code is the stable, machine-readable kind of a problem; one per status.
type Code string

// The codes of the contract, in the order of their statuses.
const (
	InvalidJSON          Code = "invalid_json"           // 400: the body is not JSON
	InvalidRequest       Code = "invalid_request"        // 400: anything else wrong with the request
	Unauthenticated      Code = "unauthenticated"        // 401
	Forbidden            Code = "forbidden"              // 403
	NotFound             Code = "not_found"              // 404
	MethodNotAllowed     Code = "method_not_allowed"     // 405
	Conflict             Code = "conflict"               // 409
	PayloadTooLarge      Code = "payload_too_large"      // 413
	UnsupportedMediaType Code = "unsupported_media_type" // 415
	RateLimited          Code = "rate_limited"           // 429
	Internal             Code = "internal"               // 500
	Unavailable          Code = "unavailable"            // 503
)

// Info describes a code: its status, its fixed title, and what it means.
type Info struct {
	Code        Code
	Status      int
	Title       string
	Description string
}

// Codes lists every code, in status order. The OpenAPI document and the docs
// page are written from it.
var Codes = []Info{
	{InvalidJSON, http.StatusBadRequest, "Malformed JSON",
		"The body is not JSON; the detail gives the 0-based byte offset of the offending byte."},
	{InvalidRequest, http.StatusBadRequest, "Invalid request",
		"Something else is wrong with the request: an unknown member, a value of the wrong type, a missing id, ids that disagree, a parent that does not exist, a list parameter out of range. errors names each member at fault."},
	{Unauthenticated, http.StatusUnauthorized, "Authentication required",
		"No Authorization header, a malformed one, or an unknown, revoked or expired token."},
	{Forbidden, http.StatusForbidden, "Forbidden",
		"The token's scope is read, and the request would write."},
	{NotFound, http.StatusNotFound, "Not found",
		"No such route, or no record with that id in the caller's team."},
	{MethodNotAllowed, http.StatusMethodNotAllowed, "Method not allowed",
		"The path exists with other methods, listed in the Allow header."},
	{Conflict, http.StatusConflict, "Conflict",
		"A unique value is taken: an id (ids are unique across teams) or a user's username."},
	{PayloadTooLarge, http.StatusRequestEntityTooLarge, "Payload too large",
		"The body is over the server's limit (1 MiB by default)."},
	{UnsupportedMediaType, http.StatusUnsupportedMediaType, "Unsupported media type",
		"A body was sent without Content-Type: application/json."},
	{RateLimited, http.StatusTooManyRequests, "Too many requests",
		"The token's rate is exhausted (or its address failed to authenticate too often); Retry-After says when to retry."},
	{Internal, http.StatusInternalServerError, "Internal error",
		"A fault of the server. The request id finds it in the server's log."},
	{Unavailable, http.StatusServiceUnavailable, "Service unavailable",
		"The database is unreachable or too slow; Retry-After says when to retry."},
}

func (c Code) info() Info {
	for _, i := range Codes {
		if i.Code == c {
			return i
		}
	}
	return Codes[len(Codes)-2] // internal
}

// Status is the HTTP status of the code.
func (c Code) Status() int { return c.info().Status }

// Title is the short, fixed summary of the code.
func (c Code) Title() string { return c.info().Title }

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
	return &Error{
		Code:    InvalidRequest,
		Detail:  fmt.Sprintf("%d members are invalid", len(errs)),
		Members: errs,
	}
}

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

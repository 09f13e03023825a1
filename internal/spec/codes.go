package spec

import "net/http"

// Code is the stable, machine-readable kind of a problem.
type Code string

// The problem codes, in the order of their statuses. ClientClosed is never
// answered (the client is gone): it names, in logs and metrics, a request
// whose client hung up.
const (
	InvalidJSON          Code = "invalid_json"           // 400: the body is not JSON
	InvalidRequest       Code = "invalid_request"        // 400: anything else wrong with the request
	Unauthenticated      Code = "unauthenticated"        // 401
	Forbidden            Code = "forbidden"              // 403
	PermissionDenied     Code = "permission_denied"      // 403
	NotFound             Code = "not_found"              // 404
	MethodNotAllowed     Code = "method_not_allowed"     // 405
	RequestTimeout       Code = "request_timeout"        // 408
	Conflict             Code = "conflict"               // 409
	KeyInUse             Code = "idempotency_key_in_use" // 409
	VersionUnavailable   Code = "version_unavailable"    // 409
	PreconditionFailed   Code = "precondition_failed"    // 412
	PayloadTooLarge      Code = "payload_too_large"      // 413
	UnsupportedMediaType Code = "unsupported_media_type" // 415
	KeyReused            Code = "idempotency_key_reused" // 422
	RuleFailed           Code = "rule_failed"            // 422
	RateLimited          Code = "rate_limited"           // 429
	Internal             Code = "internal"               // 500
	Unavailable          Code = "unavailable"            // 503
	ClientClosed         Code = "client_closed_request"  // 499, logged only
)

// CodeInfo describes a code: its status, its fixed title, and what it means.
type CodeInfo struct {
	Code        Code
	Status      int
	Title       string
	Description string
}

// Codes lists every code, in status order. The OpenAPI document and the docs
// page are written from it, and the server answers by it.
var Codes = []CodeInfo{
	{InvalidJSON, http.StatusBadRequest, "Malformed JSON",
		"The body is not JSON; the detail gives the 0-based byte offset of the offending byte."},
	{InvalidRequest, http.StatusBadRequest, "Invalid request",
		"Something else is wrong with the request: an unknown member, a value of the wrong type, a missing id, ids that disagree, a parent that does not exist, a list parameter out of range. errors names each member at fault."},
	{Unauthenticated, http.StatusUnauthorized, "Authentication required",
		"No Authorization header, a malformed one, or an unknown, revoked or expired token."},
	{Forbidden, http.StatusForbidden, "Forbidden",
		"The token's scope is read, and the request would write."},
	{PermissionDenied, http.StatusForbidden, "Permission denied",
		"The caller's role may not do this: an operation its policies do not grant (the detail names the role, the operation and the resource), a member it may not write, a preset member given another value, or a record that fails the role's check (errors names the members)."},
	{NotFound, http.StatusNotFound, "Not found",
		"No such route, or no record with that id in the caller's team."},
	{MethodNotAllowed, http.StatusMethodNotAllowed, "Method not allowed",
		"The path exists with other methods, listed in the Allow header."},
	{RequestTimeout, http.StatusRequestTimeout, "Request timeout",
		"The body did not arrive within the server's time for a whole request (30 s by default); the connection is closed."},
	{Conflict, http.StatusConflict, "Conflict",
		"A unique value is taken: an id (ids are unique across teams) or a user's username."},
	{KeyInUse, http.StatusConflict, "Idempotency key in use",
		"A request with this Idempotency-Key is still running; Retry-After says when to try again."},
	{VersionUnavailable, http.StatusConflict, "Version unavailable",
		"A revert named a version of the record whose event is gone (past the events' retention) or never was; nothing was written."},
	{PreconditionFailed, http.StatusPreconditionFailed, "Precondition failed",
		"If-Match named versions the record is not at, or the record does not exist; nothing was written."},
	{PayloadTooLarge, http.StatusRequestEntityTooLarge, "Payload too large",
		"The body is over the server's limit (1 MiB by default)."},
	{UnsupportedMediaType, http.StatusUnsupportedMediaType, "Unsupported media type",
		"A body was sent without Content-Type: application/json."},
	{KeyReused, http.StatusUnprocessableEntity, "Idempotency key reused",
		"This Idempotency-Key was used with another request (caller, method, path or body) within its lifetime."},
	{RuleFailed, http.StatusUnprocessableEntity, "Rule failed",
		"A business rule of the service (package rules) refused the write; the detail says why, errors names the members it concerns. Nothing was written."},
	{RateLimited, http.StatusTooManyRequests, "Too many requests",
		"The token's rate is exhausted (or its address failed to authenticate too often); Retry-After says when to retry."},
	{Internal, http.StatusInternalServerError, "Internal error",
		"A fault of the server. The request id finds it in the server's log."},
	{Unavailable, http.StatusServiceUnavailable, "Service unavailable",
		"The database is unreachable or too slow; Retry-After says when to retry."},
}

// clientClosed describes ClientClosed, which no answer carries, so it is not
// among Codes (the documents list what clients can receive).
var clientClosed = CodeInfo{ClientClosed, 499, "Client closed request",
	"The client hung up before the answer; the request was stopped (and a write rolled back) unless it had finished."}

// Info describes the code; an unknown code is described as internal.
func (c Code) Info() CodeInfo {
	if c == ClientClosed {
		return clientClosed
	}
	for _, i := range Codes {
		if i.Code == c {
			return i
		}
	}
	return Codes[len(Codes)-2]
}

// Status is the HTTP status of the code.
func (c Code) Status() int { return c.Info().Status }

// Title is the short, fixed summary of the code.
func (c Code) Title() string { return c.Info().Title }

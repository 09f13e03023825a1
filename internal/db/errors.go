package db

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"records/internal/migrations"
)

// The kinds of database failure the rest of the service acts on. Errors
// leaving this package match one of them with errors.Is when they are of
// that kind, and still unwrap to the driver's error.
var (
	// ErrUnavailable: the database cannot be reached, is shutting down, is
	// out of resources, is busy (SQLite's lock), or did not answer within the
	// request's deadline. Retrying later may succeed.
	ErrUnavailable = errors.New("the database is unavailable")
	// ErrConnectionLost: the connection broke or its server stopped being
	// the primary — SQLSTATE class 08 (connection exception), 57P01–57P03
	// (shut down, crashed, not accepting connections now), 25006 (a
	// read-only transaction: a demoted primary) — or the network or the
	// driver found it broken. A statement in flight may or may not have
	// been applied. It is also ErrUnavailable; the connection is dropped
	// (see lost.go).
	ErrConnectionLost = errors.New("the connection to the database was lost")
	// ErrCanceled: the caller gave up (a client that hung up); the statement
	// was stopped and its transaction rolled back.
	ErrCanceled = errors.New("the request was canceled")
	// ErrMissingParent: a foreign key names a row that does not exist.
	ErrMissingParent = errors.New("a referenced record does not exist")
	// ErrConflict: a unique value is taken; a *ConflictError says which.
	ErrConflict = errors.New("a unique value is taken")
	// ErrBadValue: the database refused a value it cannot hold (text
	// PostgreSQL cannot encode, a number out of its column's range). The
	// service's own checks refuse these first; this is the backstop that
	// keeps a value a client sent from becoming a server error.
	ErrBadValue = errors.New("the database cannot hold a value")
)

// ConflictError is a unique constraint violated by a write: the table and
// the columns of the constraint, as the schema declares them.
type ConflictError struct {
	Table   string
	Columns []string
	err     error
}

func (e *ConflictError) Error() string        { return e.err.Error() }
func (e *ConflictError) Unwrap() error        { return e.err }
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// classified is a driver error of a known kind.
type classified struct {
	kind error
	err  error
}

func (e *classified) Error() string { return e.err.Error() }
func (e *classified) Unwrap() error { return e.err }
func (e *classified) Is(target error) bool {
	return target == e.kind || e.kind == ErrConnectionLost && target == ErrUnavailable
}

// Classify types err by the driver's own codes: lib/pq's SQLSTATE, SQLite's
// extended result codes, the network's and context's errors. ctx is the
// context the statement ran under: its end tells a caller who hung up from a
// deadline that passed. An error already classified, or of no known kind, is
// returned as it is.
func Classify(ctx context.Context, err error) error {
	if err == nil || isClassified(err) {
		return err
	}
	if ctx != nil {
		switch ctx.Err() {
		case context.Canceled:
			return &classified{ErrCanceled, err}
		case context.DeadlineExceeded:
			return &classified{ErrUnavailable, err}
		}
	}
	if kind := kindOf(err); kind != nil {
		if kind == ErrConflict {
			table, cols := conflictColumns(err)
			return &ConflictError{Table: table, Columns: cols, err: err}
		}
		return &classified{kind, err}
	}
	return err
}

func isClassified(err error) bool {
	var c *classified
	var ce *ConflictError
	return errors.As(err, &c) || errors.As(err, &ce)
}

// kindOf names err's kind, or nil.
func kindOf(err error) error {
	var (
		pqErr   *pq.Error
		liteErr *sqlite.Error
		netErr  *net.OpError
	)
	switch {
	case errors.As(err, &pqErr):
		return pqKind(pqErr)
	case errors.As(err, &liteErr):
		return sqliteKind(liteErr.Code())
	case errors.Is(err, context.Canceled):
		return ErrCanceled
	case errors.Is(err, ErrConnectionLost), errors.Is(err, sqldriver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return ErrConnectionLost
	case errors.As(err, &netErr) && netErr.Op != "dial":
		return ErrConnectionLost // a connection's read or write failed
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &netErr):
		return ErrUnavailable
	}
	return nil
}

// pqKind classifies a PostgreSQL error by its SQLSTATE.
func pqKind(e *pq.Error) error {
	code := string(e.Code)
	switch {
	case code == "23505": // unique_violation
		return ErrConflict
	case code == "23503": // foreign_key_violation
		return ErrMissingParent
	case code == "57014": // query_canceled: lib/pq cancels when the context ends
		return ErrCanceled
	case code == "22021", code == "22P05", // invalid byte sequence, untranslatable character
		code == "22003", code == "22P02", code == "22007", code == "22008", // out of range, invalid text, bad date/time
		code == "54000": // program limit exceeded: a value too large for an index entry
		return ErrBadValue
	case strings.HasPrefix(code, "08"), // connection exception
		code == "57P01", code == "57P02", code == "57P03", // admin or crash shutdown, cannot connect now
		code == "25006": // read-only transaction: the server is no longer the primary
		return ErrConnectionLost
	case strings.HasPrefix(code, "57P"), // operator intervention: a database dropped, …
		strings.HasPrefix(code, "53"),    // insufficient resources
		code == "40001", code == "40P01": // serialization failure, deadlock: retryable
		return ErrUnavailable
	}
	return nil
}

// sqliteKind classifies a SQLite extended result code.
func sqliteKind(code int) error {
	switch code {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return ErrConflict
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return ErrMissingParent
	case sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_MISMATCH:
		return ErrBadValue
	}
	switch code & 0xff { // the primary result code
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
		return ErrUnavailable
	case sqlite3.SQLITE_INTERRUPT:
		return ErrCanceled
	}
	return nil
}

// conflictColumns names the table and columns of the unique constraint err
// violated. PostgreSQL names the constraint, which the schema maps to its
// columns; SQLite names the columns themselves, only in its message
// ("UNIQUE constraint failed: users.team_id, users.username").
func conflictColumns(err error) (string, []string) {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		if c, ok := constraints[pqErr.Constraint]; ok {
			return c.Table, c.Columns
		}
		return pqErr.Table, nil
	}
	var liteErr *sqlite.Error
	if !errors.As(err, &liteErr) {
		return "", nil
	}
	msg := liteErr.Error()
	i := strings.LastIndex(msg, "constraint failed: ")
	if i < 0 {
		return "", nil
	}
	list, _, _ := strings.Cut(msg[i+len("constraint failed: "):], " (")
	var table string
	var cols []string
	for _, tc := range strings.Split(list, ", ") {
		t, c, ok := strings.Cut(strings.TrimSpace(tc), ".")
		if !ok {
			continue
		}
		table = t
		cols = append(cols, c)
	}
	return table, cols
}

// constraints are the schema's unique constraints by PostgreSQL's names for
// them (generated beside the migrations).
var constraints = migrations.Constraints

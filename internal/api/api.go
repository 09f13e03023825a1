// Package api is the hand-written runtime of the generated HTTP API: one
// generic implementation per kind of operation (list, get, create, patch,
// upsert, get-or-create, action, delete), the reading of bodies and list
// parameters, and the one place where errors become problem+json.
//
// Generated code (package handlers) describes each resource — how to decode
// its members, encode it, read and write it through ent — and each operation
// of the route table; everything that differs between operations is data in
// an Op.
package api

import (
	"context"
	"database/sql"

	"records/ent"
)

// Kind is the kind of an operation.
type Kind string

// The kinds of operation.
const (
	List        Kind = "list"          // a page of records, optionally narrowed to the path's id
	Get         Kind = "get"           // one record by id
	Create      Kind = "create"        // a new record (201)
	Patch       Kind = "patch"         // merge into an existing record
	Upsert      Kind = "upsert"        // update the record with the id, or create it (201)
	GetOrCreate Kind = "get_or_create" // with an id, read; without, create
	Action      Kind = "action"        // set fixed members of an existing record
	Delete      Kind = "delete"        // delete by id, or every record of a parent
)

// Kinds lists every kind, for the generator's messages.
var Kinds = []Kind{List, Get, Create, Patch, Upsert, GetOrCreate, Action, Delete}

// Writes tells whether an operation of the kind writes: always, never, or
// only when it creates (get-or-create without an id).
func (k Kind) Writes() Writes {
	switch k {
	case List, Get:
		return Never
	case GetOrCreate:
		return WhenCreating
	default:
		return Always
	}
}

// Writes is an operation's relation to write access.
type Writes int

// How an operation writes.
const (
	Never Writes = iota
	Always
	WhenCreating
)

// Resource is what generated code tells the runtime about one resource. E
// is ent's entity type.
type Resource[E any] struct {
	Type   string // the contract's name, e.g. "Customer"
	Plural string // e.g. "customers"
	Object string // e.g. "customer"
	// Members are the member names a body may write, for suggestions.
	Members []string
	// Columns maps each member that lists may order and filter by to its column.
	Columns map[string]Column
	// Unique maps the column of each unique member to the member, so a
	// conflict can name it.
	Unique map[string]string
	// NewInput returns an empty input for decoding a body.
	NewInput func() Input[E]
	// Encode appends the record's JSON, every member present.
	Encode func(b []byte, e *E) []byte
	// ID returns the record's id.
	ID func(e *E) string
	// Select is the statement reading the columns Scan takes, without a
	// WHERE clause: SELECT "id", … FROM "table".
	Select string
	// Scan reads one row of Select into a record.
	Scan func(rows *sql.Rows) (*E, error)
	// LoadEmbeds reads what the records embed; nil when they embed nothing.
	LoadEmbeds func(ctx context.Context, r Reader, team int, records []*E) error
	// Reload reads one record through ent, inside a write's transaction.
	Reload func(ctx context.Context, c *ent.Client, id string) (*E, error)
	// Exists tells whether the record exists, locking its row for the
	// transaction when lock is true.
	Exists func(ctx context.Context, c *ent.Client, id string, lock bool) (bool, error)
	// Delete deletes one record; ent's not-found error when absent.
	Delete func(ctx context.Context, c *ent.Client, id string) error
	// DeleteWhere deletes every record whose column holds value, returning how many.
	DeleteWhere func(ctx context.Context, c *ent.Client, column string, value any) (int, error)
	// SetSecret stores the hash of a secret made for the record; nil when
	// the resource keeps none.
	SetSecret func(in Input[E], hash string)

	reads readSQL
}

// Column is a member's column, with the converter for filter values.
type Column struct {
	Name  string
	Parse func(v []byte) (any, error)
}

// Input is a decoded body for one resource, generated per resource.
type Input[E any] interface {
	// Decode reads one member's raw JSON. It returns ErrUnknownMember for a
	// name the resource does not have, ErrReadOnly for one clients may not
	// write, and otherwise the problem with the value.
	Decode(name string, v []byte) error
	// SetID sets the record's id.
	SetID(id string)
	// Create creates the record and what it embeds, after checking that
	// every parent it names exists, and returns its id.
	Create(ctx context.Context, c *ent.Client) (string, error)
	// Update merges the decoded members into the record with the id.
	Update(ctx context.Context, c *ent.Client, id string) error
}

// Service is what every handler needs, filled in by cmd/records.
type Service struct {
	// Client writes, and reads inside writes' transactions.
	Client *ent.Client
	// Reader serves plain reads: a record by id, a page.
	Reader Reader
	// MaxBody caps request bodies, in bytes.
	MaxBody int64
	// RowLocks locks a record read before it is written (PostgreSQL;
	// SQLite serializes write transactions anyway).
	RowLocks bool
	// InterruptReads bounds plain reads by the request's deadline
	// (PostgreSQL); without it they run to their end (SQLite, see readContext).
	InterruptReads bool
}

// Result is what an operation hands its envelope to encode.
type Result[E any] struct {
	Record  *E
	Records []*E
	Paging  Paging
	ID      string // the id acted on (delete, action)
	Created bool
	Secret  string // a secret made by this request, answered once
}

// Paging describes a page of a list.
type Paging struct {
	Limit   int
	Offset  int
	HasMore bool
}

package engine

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"records/ent"
)

// Errors generated decoders return for a member.
var (
	// ErrUnknownMember: the resource has no member of that name.
	ErrUnknownMember = errors.New("unknown member")
	// ErrReadOnly: the member is answered but never written by clients.
	ErrReadOnly = errors.New("is read-only")
)

// Resource is what generated code tells the runtime about one resource. E
// is ent's entity type.
type Resource[E any] struct {
	Type   string // the contract's name, e.g. "Customer"
	Plural string // e.g. "customers"
	Object string // e.g. "customer"
	// Members are the member names a body may write, for suggestions.
	Members []string
	// Fields are every member answered, in order, the id first.
	Fields []Field[E]
	// Edges are the related records a read can expand.
	Edges []Edge[E]
	// Unique maps the column of each unique member to the member, so a
	// conflict can name it.
	Unique map[string]string
	// NewInput returns an empty input for decoding a body.
	NewInput func() Input[E]
	// Encode appends the record's JSON, every member present.
	Encode func(b []byte, e *E) []byte
	// ID returns the record's id.
	ID func(e *E) string
	// Table is the resource's SQL table.
	Table string
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

	reads    readSQL
	listOnce sync.Once
	list     *listing
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

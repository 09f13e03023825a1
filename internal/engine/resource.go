package engine

import (
	"context"
	"sync"

	"records/internal/policy"
)

// Resource is what generated code tells the runtime about one resource. E
// is ent's entity type.
type Resource[E any] struct {
	Type   string // the contract's name, e.g. "Customer"
	Plural string // e.g. "customers"
	Object string // e.g. "customer"
	// Members are the member names a body may write, for suggestions.
	Members []string
	// Written maps each member a body may write to its column, the
	// sensitive ones (never answered) included.
	Written map[string]string
	// Fields are every member answered, in order, the id first.
	Fields []Field[E]
	// Edges are the related records a read can expand.
	Edges []Edge[E]
	// Cascades are the tables of the records that name this one as their
	// parent: its trash, restore and purge are theirs too (DESIGN §17).
	Cascades []Cascade
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
	// Columns are the columns Select reads, in order.
	Columns []string
	// Scan reads one row of Select into a new record.
	Scan func(rows Row) (*E, error)
	// Scanner returns a scan function that reads every row into one record,
	// for rows that are encoded as they are read and then dropped (expanded
	// children): a page of them then costs no record allocation per row.
	// The record it answers is valid until its next call.
	Scanner func() func(rows Row) (*E, error)
	// ScanPage returns a scanner of a page of up to n rows, each into a
	// new record, the records' holders in a pooled block; nil: Scan.
	ScanPage func(n int) PageScanner[E]
	// LoadEmbeds reads what the records embed; nil when they embed nothing.
	LoadEmbeds func(ctx context.Context, r Reader, team int, records []*E) error
	// Version returns the record's version.
	Version func(e *E) int64
	// SetSecret stores the hash of a secret made for the record; nil when
	// the resource keeps none.
	SetSecret func(in Input[E], hash string)

	reads    readSQL
	listOnce sync.Once
	list     *listing

	spliceOnce sync.Once
	splice     *splicing // image_splice.go
}

// Row is a row to scan: a *sql.Rows, or an event's image of one (image.go).
type Row interface {
	Scan(dest ...any) error
}

// memberOf is the member a body writes to the column.
func (res *Resource[E]) memberOf(column string) string {
	for m, c := range res.Written {
		if c == column {
			return m
		}
	}
	return column
}

// columnsOf are the columns of the members a body writes.
func (res *Resource[E]) columnsOf(members []string) []string {
	if len(members) == 0 {
		return nil
	}
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = res.Written[m]
	}
	return out
}

func (res *Resource[E]) plural() string { return res.Plural }

func (res *Resource[E]) object() string { return res.Object }

func (res *Resource[E]) table() string { return res.Table }

func (res *Resource[E]) cascades() []Cascade { return res.Cascades }

// stamps are what an update writes unasked: its update stamps
// (updated_at…), at now.
func (res *Resource[E]) stamps() *Values {
	v := &Values{}
	res.NewInput().Values(v, false)
	return v
}

func (res *Resource[E]) members() []policy.Member {
	out := make([]policy.Member, len(res.Fields))
	for i, f := range res.Fields {
		out[i] = policy.Member{Name: f.Member, Type: f.Type}
	}
	return out
}

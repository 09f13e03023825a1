package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"records/internal/db"
	"records/internal/problem"
	"records/internal/wire"
)

// Values are the columns a write sets, their values, and their
// PostgreSQL types (for an insert by SELECT, whose values have no column
// to take a type from).
type Values struct {
	cols  []string
	types []string
	args  []any
	// The first columns' room, in the value itself: a write of a dozen
	// members or fewer grows no slice.
	colsRoom  [valuesRoom]string
	typesRoom [valuesRoom]string
	argsRoom  [valuesRoom]any
}

const valuesRoom = 12

// Set adds a column (nil: NULL).
func (v *Values) Set(column, pgType string, value any) {
	if v.cols == nil {
		v.cols, v.types, v.args = v.colsRoom[:0], v.typesRoom[:0], v.argsRoom[:0]
	}
	v.cols = append(v.cols, column)
	v.types = append(v.types, pgType)
	v.args = append(v.args, value)
}

// Put sets the column of a member the body gave (nil for null); a member
// not given sets nothing.
func Put[T any](w *Values, column, pgType string, f *wire.Field[T]) {
	if f.Set {
		w.Set(column, pgType, Val(f.Value()))
	}
}

// Val is the value of a decoded member's pointer: nil for null.
func Val[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// JSONText is a JSON document as the database stores it: text.
func JSONText(p *json.RawMessage) any {
	if p == nil {
		return nil
	}
	return string(*p)
}

// JSONMap is an object of strings as the database stores it: JSON text.
func JSONMap(p *map[string]string) any {
	if p == nil {
		return nil
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

// ParentRef is a parent record an input names.
type ParentRef struct {
	Member string // the member naming it, e.g. "return_id"
	Object string // the parent's object name, e.g. "return"
	Table  string
	ID     string
}

// Step is a write that follows a record's creation in its transaction:
// the creation of an embedded child, given its parent's id.
type Step func(ctx context.Context, s *Service, w Writer, team int, parentID string) error

// Child is the Step creating embedded child in, whose member fk names the
// parent (it may be absent, or must equal the new parent's id); at is the
// child's path in the body, for errors.
func Child[C any](res *Resource[C], in Input[C], fk *wire.Field[string], at, fkMember string) Step {
	return func(ctx context.Context, s *Service, w Writer, team int, parentID string) error {
		if err := EmbeddedParent(fk, parentID, at+"."+fkMember); err != nil {
			return err
		}
		_, err := insert(ctx, s, w, res, in, team, false)
		if errors.Is(err, db.ErrConflict) {
			// The child's id (or unique member) is taken: named under
			// the child, not as the parent's.
			err = conflict(err, res.Unique)
		}
		return problem.Prefix(err, at)
	}
}

// ChildrenComplete refuses embedded children that leave out a required
// member (but fk, which the parent fills), naming each at member[i].name:
// before the database, as a create's own members are.
func ChildrenComplete[C any](items []Input[C], member, fk string) error {
	var errs []problem.MemberError
	for i, in := range items {
		for _, m := range in.Missing(nil) {
			if m != fk {
				errs = append(errs, problem.MemberError{Member: fmt.Sprintf("%s[%d].%s", member, i, m), Problem: "is required"})
			}
		}
	}
	if len(errs) > 0 {
		return problem.Members(errs)
	}
	return nil
}

// Held points into a row's holder of a nullable column: nil when the
// column was null. A record's pointers then point into the row, so reading
// a record costs one allocation.
func Held[T any](n *sql.Null[T]) *T {
	if !n.Valid {
		return nil
	}
	return &n.V
}

package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"records/internal/db"
	"records/internal/edge"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
)

// Write runs fn, the statements of a write, within the request's deadline:
// in one transaction when inTx (all of it is written, or none), else as
// single statements. fn runs its statements under the ctx it is given,
// which carries the deadline (a statement waiting on a lock is interrupted
// at it).
// A request that runs in one write (see writerKey) writes in that one.
func (s *Service) Write(ctx context.Context, inTx bool, fn func(ctx context.Context, w Writer) error) error {
	if w, ok := ctx.Value(writerKey{}).(Writer); ok {
		return fn(ctx, w)
	}
	ctx, cancel := edge.Bounded(ctx)
	defer cancel()
	if !inTx {
		return s.DB.Write(ctx, false, func(w Writer) error { return fn(ctx, w) })
	}
	meta := eventMeta(ctx)
	return s.DB.Write(ctx, true, func(w Writer) error {
		if err := setMeta(ctx, w, meta); err != nil {
			return err
		}
		return fn(ctx, w)
	})
}

// writeError classifies the error of a write: a taken unique value, a
// parent deleted meanwhile, or whatever else it was.
func (op *Op[E]) writeError(err error) error {
	switch {
	case errors.Is(err, db.ErrMissingParent):
		return problem.New(problem.InvalidRequest, "a record this one names does not exist")
	case errors.Is(err, db.ErrConflict):
		return conflict(err, op.Res.Unique)
	}
	return err
}

// conflictMember is the member whose value a conflict says is taken: the
// id unless another unique member is in the violated constraint.
func conflictMember(err error, unique map[string]string) string {
	member := "id"
	var ce *db.ConflictError
	if errors.As(err, &ce) {
		for _, col := range ce.Columns {
			if m, ok := unique[col]; ok && col != "id" {
				member = m
			}
		}
	}
	return member
}

// unwritten explains why a write to the record with id matched nothing:
// it does not exist in the team (404, or 412 under If-Match), it is not at
// a version If-Match lists (412), or a parent it would name is not the
// team's (400). When none of these holds, the record was deleted and made
// again between the write and this look (on PostgreSQL the write's
// statement saw neither the record nor its successor): errRecreated, and
// the write is tried again (see retryRecreated).
func (op *Op[E]) unwritten(ctx context.Context, w Writer, team int, id string, pre *precondition, parents []ParentRef, fixed *Values) error {
	pop := policy.Update
	if op.Kind == spec.Delete {
		pop = policy.Delete
	}
	version, found, err := current(ctx, w, op.Res, team, id, pop)
	switch {
	case err != nil:
		return err
	case !found && pre != nil && !pre.exclude:
		return pre.failed(op.Res.Object, id)
	case !found:
		return notFound(op.Res.Object, id)
	case pre != nil && !pre.matches(version):
		return pre.failed(op.Res.Object, id)
	}
	if err := missingParent(ctx, w, team, parents); err != nil {
		return err
	}
	if err := op.fixedChanged(ctx, w, team, id, fixed); err != nil {
		return err
	}
	return errRecreated
}

// fixedChanged names the immutable members given whose values differ from
// the record's: set on create, then fixed.
func (op *Op[E]) fixedChanged(ctx context.Context, w Writer, team int, id string, fixed *Values) error {
	if fixed == nil || len(fixed.cols) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	args := make([]any, 0, len(fixed.cols)+2)
	for i, c := range fixed.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		spec.WriteIdent(&b, c)
		b.WriteString(" IS NOT DISTINCT FROM ?")
		args = append(args, fixed.args[i])
	}
	b.WriteString(" FROM ")
	spec.WriteIdent(&b, op.Res.Table)
	b.WriteString(` WHERE "id" = ? AND ` + teamOnly)
	args = append(args, id, team)
	same := make([]bool, len(fixed.cols))
	_, err := w.Query(ctx, 1, b.String(), args, func(rows *sql.Rows) error {
		dest := make([]any, len(same))
		for i := range same {
			dest[i] = &same[i]
		}
		return rows.Scan(dest...)
	})
	if err != nil {
		return err
	}
	var errs []problem.MemberError
	for i, ok := range same {
		if !ok {
			errs = append(errs, problem.MemberError{Member: op.Res.memberOf(fixed.cols[i]),
				Problem: "is set on create, then fixed: it cannot change (the same value passes)"})
		}
	}
	if len(errs) > 0 {
		return problem.Members(errs)
	}
	return nil
}

// errRecreated: a record was deleted and made again while written.
var errRecreated = errors.New("the record was deleted and made again while written")

// retryRecreated runs a write of the record with id once more if the
// record was deleted and made again while it ran (errRecreated), so the
// write applies to the record that now has the id, as it would have to a
// record merely changed meanwhile; should that happen twice, the record
// is answered as not found, which it was when the write ran.
func (op *Op[E]) retryRecreated(id string, write func() error) error {
	err := write()
	if errors.Is(err, errRecreated) {
		err = write()
	}
	if errors.Is(err, errRecreated) {
		err = notFound(op.Res.Object, id)
	}
	return err
}

// notFound is the 404 of a resource's record.
func notFound(object, id string) *problem.Error {
	return problem.New(problem.NotFound, "no %s has id %s", object, strconv.Quote(id))
}

// conflict is the 409 of a unique value already taken, naming the member
// of the violated constraint (the id unless another unique member is in
// it). unique maps columns to members.
func conflict(err error, unique map[string]string) *problem.Error {
	member := conflictMember(err, unique)
	return &problem.Error{
		Code:    problem.Conflict,
		Detail:  fmt.Sprintf("%s: the value is already taken", member),
		Members: []problem.MemberError{{Member: member, Problem: "is already taken"}},
	}
}

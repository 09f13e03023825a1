package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"records/ent"
	"records/internal/db"
	"records/internal/edge"
	"records/internal/problem"
)

// inTx runs fn in one transaction: all of it is written, or none.
func (s *Service) inTx(ctx context.Context, fn func(c *ent.Client) error) error {
	ctx, cancel := edge.Bounded(ctx)
	defer cancel()
	tx, err := s.Client.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx.Client()); err != nil {
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			return errors.Join(err, rerr)
		}
		return err
	}
	return tx.Commit()
}

// writeError classifies the error of a write: not found, a taken unique
// value, a parent deleted meanwhile, or whatever else it was.
func (op *Op[E]) writeError(err error, id string) error {
	switch {
	case ent.IsNotFound(err):
		return notFound(op.Res.Object, id)
	case errors.Is(err, db.ErrMissingParent):
		return problem.New(problem.InvalidRequest, "a record this one names does not exist")
	case errors.Is(err, db.ErrConflict):
		return conflict(err, op.Res.Unique)
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
	member := "id"
	var ce *db.ConflictError
	if errors.As(err, &ce) {
		for _, col := range ce.Columns {
			if m, ok := unique[col]; ok && col != "id" {
				member = m
			}
		}
	}
	return &problem.Error{
		Code:    problem.Conflict,
		Detail:  fmt.Sprintf("%s: the value is already taken", member),
		Members: []problem.MemberError{{Member: member, Problem: "is already taken"}},
	}
}

package engine

import (
	"context"
	"errors"

	"records/ent"
	"records/internal/auth"
	"records/internal/db"
)

// upsert updates the record with the id, or creates it. Two clients
// creating one id at once: the loser's insert fails on the key, and its
// retry finds the record and updates it. A key taken by another team stays
// a conflict.
func (op *Op[E]) upsert(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if !op.IDOptional {
		if err := op.requireID(req); err != nil {
			return 0, nil, err
		}
	}
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	var r *Result[E]
	for attempt := 0; ; attempt++ {
		r = &Result[E]{ID: req.id}
		err = s.inTx(ctx, func(c *ent.Client) error { return op.upsertOnce(ctx, s, c, req, in, r) })
		if err == nil || attempt == 1 || !errors.Is(err, db.ErrConflict) || !req.hasID {
			break
		}
	}
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	r.ID = op.Res.ID(r.Record)
	return statusOf(r), r, nil
}

// upsertOnce is one attempt of an upsert, inside its transaction.
func (op *Op[E]) upsertOnce(ctx context.Context, s *Service, c *ent.Client, req *request, in Input[E], r *Result[E]) error {
	exists := false
	if req.hasID {
		var err error
		if exists, err = op.Res.Exists(ctx, c, req.id, s.RowLocks); err != nil {
			return err
		}
	}
	id := req.id
	if exists {
		if err := in.Update(ctx, c, id); err != nil {
			return err
		}
	} else {
		if op.Secret {
			r.Secret = auth.NewSecret("sk_")
			op.Res.SetSecret(in, auth.HashSecret(r.Secret))
		}
		var err error
		if id, err = in.Create(ctx, c); err != nil {
			return err
		}
		r.Created = true
	}
	var err error
	r.Record, err = op.Res.Reload(ctx, c, id)
	return err
}

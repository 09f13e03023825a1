package engine

import (
	"context"
	"net/http"

	"records/ent"
	"records/internal/guard"
)

// create makes a record (and what it embeds) in one transaction.
func (op *Op[E]) create(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	if err := guard.MayWrite(ctx); err != nil {
		return 0, nil, err
	}
	r := &Result[E]{Created: true}
	err = s.inTx(ctx, func(c *ent.Client) error {
		id, err := in.Create(ctx, c)
		if err != nil {
			return err
		}
		r.Record, err = op.Res.Reload(ctx, c, id)
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	r.ID = op.Res.ID(r.Record)
	return http.StatusCreated, r, nil
}

package engine

import (
	"context"
	"net/http"

	"records/ent"
)

// patch merges the body into the record with the id: members given are
// written (null clears), absent ones stay.
func (op *Op[E]) patch(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	r := &Result[E]{ID: req.id}
	err = s.inTx(ctx, func(c *ent.Client) error {
		if err := in.Update(ctx, c, req.id); err != nil {
			return err
		}
		r.Record, err = op.Res.Reload(ctx, c, req.id)
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	return http.StatusOK, r, nil
}

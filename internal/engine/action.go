package engine

import (
	"context"
	"fmt"
	"net/http"

	"records/ent"
)

// action writes the operation's fixed members to the record with the id.
func (op *Op[E]) action(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "this operation takes no member but the id"); err != nil {
		return 0, nil, err
	}
	in := op.Res.NewInput()
	for _, m := range op.Set {
		if err := in.Decode(m.Name, m.Value); err != nil {
			return 0, nil, fmt.Errorf("operation %s sets %s: %w", op.Name, m.Name, err)
		}
	}
	err := s.inTx(ctx, func(c *ent.Client) error { return in.Update(ctx, c, req.id) })
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	return http.StatusOK, &Result[E]{ID: req.id}, nil
}

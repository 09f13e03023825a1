package engine

import (
	"context"
	"fmt"
	"net/http"

	"records/internal/policy"
)

// action writes the operation's fixed members to the record with the id.
func (op *Op[E]) action(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "this operation takes no member but the id"); err != nil {
		return 0, nil, err
	}
	set := &request{}
	for _, m := range op.Set {
		set.record = append(set.record, namedMember{written: m.Name, name: m.Name, value: m.Value})
	}
	if err := op.guardWrite(ctx, set, policy.Update); err != nil {
		return 0, nil, err
	}
	in := op.Res.NewInput()
	for _, m := range op.Set {
		if err := in.Decode(m.Name, m.Value); err != nil {
			return 0, nil, fmt.Errorf("operation %s sets %s: %w", op.Name, m.Name, err)
		}
	}
	rec, _, err := op.update(ctx, s, req, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, &Result[E]{Record: rec, ID: req.id}, nil
}

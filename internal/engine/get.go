package engine

import (
	"context"
	"net/http"
)

// get answers the record with the id, or 404.
func (op *Op[E]) get(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "a read takes only the id"); err != nil {
		return 0, nil, err
	}
	return op.read(ctx, s, req.id)
}

// getOrCreate reads the record with the id, or creates one from the body
// when no id is given.
func (op *Op[E]) getOrCreate(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if req.hasID {
		if err := op.onlyID(req, "a read never writes: with an id, the body holds nothing else"); err != nil {
			return 0, nil, err
		}
		return op.read(ctx, s, req.id)
	}
	return op.create(ctx, s, req)
}

func (op *Op[E]) read(ctx context.Context, s *Service, id string) (int, *Result[E], error) {
	ctx, cancel, err := s.readContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer cancel()
	rec, found, err := find(ctx, s.Reader, op.Res, id)
	switch {
	case err != nil:
		return 0, nil, err
	case !found:
		return 0, nil, notFound(op.Res.Object, id)
	}
	return http.StatusOK, &Result[E]{Record: rec, ID: id}, nil
}

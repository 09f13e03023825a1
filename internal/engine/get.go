package engine

import (
	"context"
	"net/http"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
)

// get answers the record with the id, or 404.
func (op *Op[E]) get(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	return op.readOne(ctx, s, req, "a read takes only the id (and fields, expand)")
}

// getOrCreate reads the record with the id, or creates one from the body
// when no id is given.
func (op *Op[E]) getOrCreate(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if req.hasID {
		if err := accessOf(ctx).may(op.Res, policy.Read); err != nil {
			return 0, nil, err
		}
		return op.readOne(ctx, s, req, "a read never writes: with an id, the body holds nothing else (but fields, expand)")
	}
	return op.create(ctx, s, req)
}

// readOne answers the record with the request's id, in the trash and the
// view it asks for; only says what else the request may not hold.
func (op *Op[E]) readOne(ctx context.Context, s *Service, req *request, only string) (int, *Result[E], error) {
	ctx, err := op.readTrash(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	v, err := op.readView(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, only); err != nil {
		return 0, nil, err
	}
	return op.read(ctx, s, req, v)
}

// readTrash takes ?trashed= out of a read's members: the read then sees
// the trash as it asks (a role needs restore for that).
func (op *Op[E]) readTrash(ctx context.Context, req *request) (context.Context, error) {
	var raw []byte
	rest := req.record[:0]
	for _, m := range req.record {
		if m.name == ParamTrashed {
			raw = m.value
			continue
		}
		rest = append(rest, m)
	}
	req.record = rest
	if raw == nil {
		return ctx, nil
	}
	t, err := parseTrashed(raw)
	if err != nil {
		return ctx, err
	}
	return askTrash(ctx, op.Res, t)
}

// readView takes a read's fields and expand out of the request's members.
func (op *Op[E]) readView(ctx context.Context, req *request) (*view[E], error) {
	l := listOf(ctx, op.Res)
	var fields, expand []string
	var errs []problem.MemberError
	rest := req.record[:0]
	for _, m := range req.record {
		switch m.name {
		case query.ParamFields:
			var e []problem.MemberError
			fields, e = query.Names(m.value, false, m.written, l.Members)
			errs = append(errs, e...)
		case query.ParamExpand:
			var e []problem.MemberError
			expand, e = query.Names(m.value, false, m.written, l.Edges)
			errs = append(errs, e...)
		default:
			rest = append(rest, m)
		}
	}
	req.record = rest
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return newView(ctx, op.Res, fields, expand), nil
}

func (op *Op[E]) read(ctx context.Context, s *Service, req *request, v *view[E]) (int, *Result[E], error) {
	id := req.id
	ctx, cancel, err := s.readContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer cancel()
	rec, found, err := find(ctx, s.reader(ctx), op.Res, id)
	switch {
	case err != nil:
		return 0, nil, err
	case !found:
		return 0, nil, notFound(op.Res.Object, id)
	}
	// An answer other than the record alone is tagged by its digest:
	// If-None-Match is checked once it is rendered (Op.answer).
	partial := op.partial(v)
	if req.ifNoneMatch != nil && !partial && req.ifNoneMatch.matches(op.Res.Version(rec)) {
		return http.StatusNotModified, &Result[E]{Record: rec, notModified: true}, nil
	}
	if trashOf(ctx) != Live && v == nil {
		v = &view[E]{}
	}
	if v != nil {
		team, _ := teamOf(ctx)
		if err := v.load(ctx, s.reader(ctx), op.Res, team, []*E{rec}); err != nil {
			return 0, nil, err
		}
		if err := loadTrash(ctx, s.reader(ctx), op.Res, team, v, []*E{rec}); err != nil {
			return 0, nil, err
		}
	}
	r := &Result[E]{Record: rec, ID: id, view: v}
	if partial {
		r.ifNoneMatch = req.ifNoneMatch
	}
	return http.StatusOK, r, nil
}

package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
)

// delete deletes the record with the id (the database deletes its
// children), under If-Match; or, given the operation's By member, every
// record of that parent.
func (op *Op[E]) delete(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.onlyID(req, "a delete takes only the id"); err != nil {
		return 0, nil, err
	}
	if op.By != "" && req.hasID == req.hasBy {
		return 0, nil, &problem.Error{
			Code:   problem.InvalidRequest,
			Detail: fmt.Sprintf("give exactly one of %s (delete every %s of it) or %s (delete one)", op.By, op.Res.Object, op.IDMembers[0]),
			Members: []problem.MemberError{
				{Member: op.By, Problem: "give this or " + op.IDMembers[0] + ", not both or neither"},
				{Member: op.IDMembers[0], Problem: "give this or " + op.By + ", not both or neither"},
			},
		}
	}
	if req.hasBy {
		return op.deleteBy(ctx, s, req)
	}
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	rules := rulesOf(s, op.Res)
	c := &change[E]{kind: op.Kind, id: req.id, team: team, in: op.Res.NewInput()}
	if rules != nil {
		if err := rules.runValidate(ctx, c); err != nil {
			return 0, nil, err
		}
	}
	before := rules != nil && rules.hasBeforeWrite()
	var b strings.Builder
	cond, args := rowScope(ctx, op.Res, policy.Delete, team, []any{req.id})
	b.WriteString(`DELETE FROM ` + spec.Ident(op.Res.Table) + ` WHERE "id" = ? AND ` + cond)
	args = versionCondition(&b, req.ifMatch, args)
	args = metaCondition(&b, eventMeta(ctx), args)
	err = op.retryRecreated(req.id, func() error {
		return s.Write(ctx, before, func(ctx context.Context, w Writer) error {
			if before {
				if err := rules.runBeforeWrite(ctx, w, c); err != nil {
					return err
				}
			}
			n, err := w.Exec(ctx, b.String(), args...)
			if err == nil && n == 0 {
				err = op.unwritten(ctx, w, team, req.id, req.ifMatch, nil, nil)
			}
			return err
		})
	})
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	committed[E](ctx, s, op.Res, team, req.id, nil)
	return http.StatusOK, &Result[E]{ID: req.id}, nil
}

// deleteBy deletes every record of the parent req names; 404 when it has none.
func (op *Op[E]) deleteBy(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if req.ifMatch != nil {
		return 0, nil, problem.Member("If-Match", "applies to one record; delete by %s deletes many", op.By)
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	err = s.Write(ctx, false, func(ctx context.Context, w Writer) (err error) {
		var b strings.Builder
		cond, args := rowScope(ctx, op.Res, policy.Delete, team, nil)
		b.WriteString(`DELETE FROM ` + spec.Ident(op.Res.Table) + ` WHERE ` + cond + ` AND ` + spec.Ident(op.ByColumn) + ` = ?`)
		args = metaCondition(&b, eventMeta(ctx), append(args, req.by))
		n, err = w.Exec(ctx, b.String(), args...)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	if n == 0 {
		return 0, nil, problem.New(problem.NotFound, "no %s has %s %q", op.Res.Object, op.By, req.by)
	}
	return http.StatusOK, &Result[E]{ID: req.by}, nil
}

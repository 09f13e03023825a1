package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
)

// delete moves the record with the id and the records its delete cascades
// to — its children, theirs — to the trash, as one batch (DESIGN §17), under
// If-Match; or, given the operation's By member, every record of that
// parent. With ?permanent=true (admin only) it erases the record for good,
// from the trash or not, and the database erases its children.
func (op *Op[E]) delete(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.onlyID(req, "a delete takes only the id"); err != nil {
		return 0, nil, err
	}
	if err := op.byOrID(req); err != nil {
		return 0, nil, err
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
	if req.permanent {
		if a := accessOf(ctx); a != nil {
			return 0, nil, problem.New(spec.PermissionDenied, "only admin erases records for good; the role %s may move them to the trash", a.p.Role)
		}
		ctx = withTrash(ctx, TrashIncluded)
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
	var args []any
	stamp := trashStamp(ctx)
	if req.permanent {
		// The database erases its children (ON DELETE CASCADE), in the
		// trash or not.
		b.WriteString(`DELETE FROM ` + spec.Ident(op.Res.Table))
	} else {
		b.WriteString(`UPDATE ` + spec.Ident(op.Res.Table) + ` SET ` + trashSet)
		args = append(args, stamp...)
	}
	cond, args := rowScope(ctx, op.Res, policy.Delete, team, append(args, req.id))
	b.WriteString(` WHERE "id" = ? AND ` + cond)
	args = versionCondition(&b, req.ifMatch, args)
	args = metaCondition(&b, eventMeta(ctx), args)
	cascade := !req.permanent && len(op.Res.Cascades) > 0
	err = op.retryRecreated(req.id, func() error {
		return s.Write(ctx, before || cascade, func(ctx context.Context, w Writer) error {
			if before {
				if err := rules.runBeforeWrite(ctx, w, c); err != nil {
					return err
				}
			}
			n, err := w.Exec(ctx, b.String(), args...)
			if err == nil && n == 0 {
				err = op.unwritten(ctx, w, team, req.id, req.ifMatch, nil, nil)
			}
			if err == nil && cascade {
				err = s.trashChildren(ctx, w, op.Res.Table, op.Res.Cascades, team, stamp)
			}
			return err
		})
	})
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	if req.permanent {
		afterCommit(ctx, s, op.Res, team, req.id, "purged", 0)
	} else {
		committed[E](ctx, s, op.Res, team, req.id, nil)
	}
	return http.StatusOK, &Result[E]{ID: req.id}, nil
}

// byOrID refuses a delete of an operation with a By member (delete every
// record of a parent) that names both the parent and an id, or neither.
func (op *Op[E]) byOrID(req *request) error {
	if op.By == "" || req.hasID != req.hasBy {
		return nil
	}
	return &problem.Error{
		Code:   problem.InvalidRequest,
		Detail: fmt.Sprintf("give exactly one of %s (delete every %s of it) or %s (delete one)", op.By, op.Res.Object, op.IDMembers[0]),
		Members: []problem.MemberError{
			{Member: op.By, Problem: "give this or " + op.IDMembers[0] + ", not both or neither"},
			{Member: op.IDMembers[0], Problem: "give this or " + op.By + ", not both or neither"},
		},
	}
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
	if req.permanent {
		return 0, nil, problem.Member(op.By, "a delete by %s moves records to the trash; erase them one by one", op.By)
	}
	var n int64
	stamp := trashStamp(ctx)
	err = s.Write(ctx, len(op.Res.Cascades) > 0, func(ctx context.Context, w Writer) (err error) {
		var b strings.Builder
		cond, args := rowScope(ctx, op.Res, policy.Delete, team, slices.Clone(stamp))
		b.WriteString(`UPDATE ` + spec.Ident(op.Res.Table) + ` SET ` + trashSet + ` WHERE ` + cond + ` AND ` + spec.Ident(op.ByColumn) + ` = ?`)
		args = metaCondition(&b, eventMeta(ctx), append(args, req.by))
		if n, err = w.Exec(ctx, b.String(), args...); err != nil || n == 0 {
			return err
		}
		return s.trashChildren(ctx, w, op.Res.Table, op.Res.Cascades, team, stamp)
	})
	if err != nil {
		return 0, nil, err
	}
	if n == 0 {
		return 0, nil, problem.New(problem.NotFound, "no %s has %s %q", op.Res.Object, op.By, req.by)
	}
	return http.StatusOK, &Result[E]{ID: req.by}, nil
}

// takePermanent takes ?permanent= out of a delete's query string q: true
// erases the record for good (DESIGN §17).
func takePermanent(kind spec.Kind, q url.Values) (bool, error) {
	v, ok := q["permanent"]
	if !ok || kind != spec.Delete {
		return false, nil
	}
	delete(q, "permanent")
	switch {
	case len(v) == 1 && v[0] == "true":
		return true, nil
	case len(v) == 1 && v[0] == "false":
		return false, nil
	}
	return false, problem.Member("permanent", `must be "true" or "false"`)
}

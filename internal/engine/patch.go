package engine

import (
	"context"
	"net/http"

	"records/internal/policy"
)

// patch merges the body into the record with the id — members given are
// written (null clears), absent ones stay — in one statement that also
// checks If-Match and the parents the body names.
func (op *Op[E]) patch(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.guardWrite(ctx, req, policy.Update); err != nil {
		return 0, nil, err
	}
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	rec, team, err := op.update(ctx, s, req, in)
	if err != nil {
		return 0, nil, err
	}
	r, err := op.written(ctx, s, team, rec, false)
	return http.StatusOK, r, err
}

// update writes in to the record with req's id, under req's If-Match.
func (op *Op[E]) update(ctx context.Context, s *Service, req *request, in Input[E]) (*E, int, error) {
	if _, err := in.Then(false); err != nil {
		return nil, 0, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return nil, 0, err
	}
	rules := rulesOf(s, op.Res)
	c := &change[E]{kind: op.Kind, id: req.id, team: team, in: in}
	if rules != nil {
		if err := rules.runValidate(ctx, c); err != nil {
			return nil, 0, err
		}
	}
	before := rules != nil && rules.hasBeforeWrite()
	check := mustCheck(ctx, op.Res, policy.Update)
	var rec *E
	err = op.retryRecreated(req.id, func() error {
		return s.Write(ctx, before || check, func(ctx context.Context, w Writer) (err error) {
			if before {
				if err := rules.runBeforeWrite(ctx, w, c); err != nil {
					return err
				}
			}
			// The statement is made once the rules have set what they set.
			var v, fixed Values
			in.Values(&v, false)
			in.Fixed(&fixed)
			parents := in.Parents()
			text, args := updateSQL(ctx, op.Res, req.id, team, &v, req.ifMatch, parents, eventMeta(ctx), &fixed)
			if rec, err = writeRecord(ctx, w, op.Res, text, args); err == nil && rec == nil {
				err = op.unwritten(ctx, w, team, req.id, req.ifMatch, parents, &fixed)
			}
			if err == nil {
				err = checkWritten(ctx, w, op.Res, team, []string{req.id}, policy.Update)
			}
			return err
		})
	})
	if err != nil {
		return nil, 0, op.writeError(err)
	}
	committed(ctx, s, op.Res, team, req.id, rec)
	return rec, team, nil
}

package engine

import (
	"context"
	"net/http"

	"records/internal/guard"
	"records/internal/policy"
	"records/internal/spec"
)

// create makes a record — one statement, or one transaction with what it
// embeds — and answers it as stored.
func (op *Op[E]) create(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.guardWrite(ctx, req, policy.Create); err != nil {
		return 0, nil, err
	}
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	if err := requireMembers(in, ""); err != nil {
		return 0, nil, err
	}
	if err := guard.MayWrite(ctx); err != nil {
		return 0, nil, err
	}
	steps, err := in.Then(true)
	if err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	rules := rulesOf(s, op.Res)
	var c *change[E]
	if rules != nil {
		id, given := in.GivenID()
		if !given {
			id = spec.NewID()
			in.SetID(id)
		}
		c = &change[E]{kind: op.Kind, creating: true, id: id, team: team, in: in}
		if err := rules.runValidate(ctx, c); err != nil {
			return 0, nil, err
		}
	}
	check := mustCheck(ctx, op.Res, policy.Create)
	inTx := len(steps) > 0 || check || (rules != nil && rules.hasBeforeWrite())
	if k := keyedFrom(ctx); k != nil {
		if inTx {
			return 0, nil, errTakeTransaction
		}
		r, err := op.createKeyed(ctx, s, k, in, team)
		if err == nil {
			committed(ctx, s, op.Res, team, r.ID, r.Record)
		}
		return http.StatusCreated, r, err
	}
	var rec *E
	err = s.Write(ctx, inTx, func(ctx context.Context, w Writer) (err error) {
		if c != nil && rules.hasBeforeWrite() {
			if err := rules.runBeforeWrite(ctx, w, c); err != nil {
				return err
			}
		}
		if rec, err = insert(ctx, s, w, op.Res, in, team, true); err != nil {
			return err
		}
		return checkWritten(ctx, w, op.Res, team, []string{op.Res.ID(rec)}, policy.Create)
	})
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	r, err := op.written(ctx, s, team, rec, true)
	if err == nil {
		committed(ctx, s, op.Res, team, r.ID, r.Record)
	}
	return http.StatusCreated, r, err
}

// written is the result of a write that stored rec, with what it embeds
// (read after the write, on the few resources that embed records).
func (op *Op[E]) written(ctx context.Context, s *Service, team int, rec *E, created bool) (*Result[E], error) {
	if err := loadEmbeds(ctx, s.reader(ctx), op.Res, team, []*E{rec}); err != nil {
		return nil, err
	}
	return &Result[E]{Record: rec, ID: op.Res.ID(rec), Created: created}, nil
}

package engine

import (
	"context"
	"errors"
	"strconv"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
)

// upsert updates the record with the id, or creates it, in one statement
// (INSERT … ON CONFLICT): two clients creating one id at once cannot both
// create it. A record's version tells which happened: 1 when created. An id
// taken by another team is a conflict. Under If-Match the record must
// exist: it is an update; under If-None-Match: * it must not: a create,
// 412 when the id is taken (with no id, where one is optional, a create
// under a new one).
func (op *Op[E]) upsert(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	createOnly := req.ifNoneMatch != nil
	update, err := op.upsertUpdates(ctx, s, req, createOnly)
	if err != nil {
		return 0, nil, err
	}
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	if update {
		rec, team, err := op.update(ctx, s, req, in)
		if err != nil {
			return 0, nil, err
		}
		r, err := op.written(ctx, s, team, rec, false)
		return statusOf(r), r, err
	}
	return op.upsertStatement(ctx, s, in, createOnly)
}

// upsertUpdates checks the request's id and tells whether the upsert is
// an update: under If-Match; for a role other than admin, also when the
// record exists, and it is then checked under the update policy (else
// the create policy).
func (op *Op[E]) upsertUpdates(ctx context.Context, s *Service, req *request, createOnly bool) (bool, error) {
	// Without an id (where one is optional) the record is created under a
	// new one, which If-None-Match: * cannot fail.
	if !op.IDOptional || req.ifMatch != nil {
		if err := op.requireID(req); err != nil {
			return false, err
		}
	}
	// A role other than admin updates under its update policy, or creates
	// under its create policy: which, the record's existence says.
	update := req.ifMatch != nil
	if accessOf(ctx) != nil {
		var err error
		if !update && !createOnly && req.hasID {
			if update, err = op.exists(ctx, s, req.id); err != nil {
				return false, err
			}
		}
		pop := policy.Create
		if update {
			pop = policy.Update
		}
		if err := op.guardWrite(ctx, req, pop); err != nil {
			return false, err
		}
	}
	return update, nil
}

// upsertStatement creates the record, or updates it, in one INSERT … ON
// CONFLICT (a plain INSERT when createOnly or for a role other than admin).
func (op *Op[E]) upsertStatement(ctx context.Context, s *Service, in Input[E], createOnly bool) (int, *Result[E], error) {
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	steps, err := in.Then(true)
	if err != nil {
		return 0, nil, err
	}
	id, given := in.GivenID()
	if !given {
		id = spec.NewID()
		in.SetID(id)
	}
	var secret string
	if op.Secret {
		secret = auth.NewSecret("sk_")
		op.Res.SetSecret(in, auth.HashSecret(secret))
	}
	if createOnly || !given {
		// Only a create: it must give every required member.
		if err := requireMembers(in, ""); err != nil {
			return 0, nil, err
		}
	}
	rules := rulesOf(s, op.Res)
	c := &change[E]{kind: op.Kind, creating: !given || createOnly, id: id, team: team, in: in}
	if rules != nil {
		if err := rules.runValidate(ctx, c); err != nil {
			return 0, nil, err
		}
	}
	before := rules != nil && rules.hasBeforeWrite()
	check := mustCheck(ctx, op.Res, policy.Create)
	var rec *E
	err = s.Write(ctx, len(steps) > 0 || before || check, func(ctx context.Context, w Writer) (err error) {
		if before {
			// The rules learn whether the record is made, and may set
			// members before the statement is.
			_, found, err := current(ctx, w, op.Res, team, id, policy.Update)
			if err != nil {
				return err
			}
			c.creating = !found
			if err := rules.runBeforeWrite(ctx, w, c); err != nil {
				return err
			}
		}
		rec, err = op.upsertRow(ctx, s, w, c, steps, createOnly)
		return err
	})
	if createOnly && errors.Is(err, db.ErrConflict) && conflictMember(err, op.Res.Unique) == "id" {
		return 0, nil, &problem.Error{Code: spec.PreconditionFailed,
			Detail: "a " + op.Res.Object + " has the id " + strconv.Quote(id) + "; If-None-Match: * creates only"}
	}
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	r, err := op.written(ctx, s, team, rec, op.Res.Version(rec) == 1)
	if err == nil && r.Created {
		r.Secret = secret
	}
	if err == nil {
		committed(ctx, s, op.Res, team, id, rec)
	}
	if err != nil {
		return 0, nil, err
	}
	return statusOf(r), r, nil
}

// upsertRow runs an upsert's statement in w, and a create's further steps;
// it returns the record written.
func (op *Op[E]) upsertRow(ctx context.Context, s *Service, w Writer, c *change[E], steps []Step, createOnly bool) (*E, error) {
	in, team, id := c.in, c.team, c.id
	var create, change, fixed Values
	in.Values(&create, true)
	in.Values(&change, false)
	in.Fixed(&fixed)
	parents := in.Parents()
	onConflict := &upsertSQL{change: &change, fixed: &fixed, current: op.Res.columnsOf(in.Missing(nil))}
	if createOnly || accessOf(ctx) != nil {
		// A plain INSERT: a taken id fails it. A role's upsert of a
		// record that exists went to update above.
		onConflict = nil
	}
	text, args := insertSQL(s.Dialect, op.Res, id, team, &create, parents, onConflict, eventMeta(ctx), nil)
	rec, err := writeRecord(ctx, w, op.Res, text, args)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		// A parent is not the team's, a required member is missing from a
		// create, an immutable one changes, or the id is another team's.
		return nil, op.unupserted(ctx, w, team, id, in, parents, &fixed)
	}
	if err := checkWritten(ctx, w, op.Res, team, []string{id}, policy.Create); err != nil {
		return nil, err
	}
	if op.Res.Version(rec) > 1 {
		_, err := in.Then(false)
		return rec, err
	}
	for _, step := range steps {
		if err := step(ctx, s, w, team, id); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// unupserted says why an upsert wrote nothing.
func (op *Op[E]) unupserted(ctx context.Context, w Writer, team int, id string, in Input[E], parents []ParentRef, fixed *Values) error {
	if err := missingParent(ctx, w, team, parents); err != nil {
		return err
	}
	_, found, err := current(ctx, w, op.Res, team, id, policy.Update)
	switch {
	case err != nil:
		return err
	case !found && len(in.Missing(nil)) > 0:
		return requireMembers(in, "")
	case found:
		if err := op.fixedChanged(ctx, w, team, id, fixed); err != nil {
			return err
		}
	}
	return conflict(nil, nil)
}

package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"records/internal/db"
	"records/internal/guard"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// isArray tells whether a body is a JSON array (a bulk create).
func isArray(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// bulk creates every record of a JSON array in one transaction, or none:
// each element is read as a create's body, every fault named under its
// index ([3].email), and the records answered in input order.
func (op *Op[E]) bulk(ctx context.Context, s *Service, body []byte) (int, *Result[E], error) {
	items, err := wire.ParseArray(body)
	if err != nil {
		return 0, nil, parseError(err)
	}
	if len(items) == 0 || len(items) > spec.MaxBulk {
		return 0, nil, problem.New(problem.InvalidRequest, "a bulk create takes 1 to %d records, not %d", spec.MaxBulk, len(items))
	}
	b, err := op.bulkRead(ctx, items)
	if err != nil {
		return 0, nil, err
	}
	if err := guard.MayWrite(ctx); err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	rules := rulesOf(s, op.Res)
	changes, err := op.bulkValidate(ctx, rules, team, b)
	if err != nil {
		return 0, nil, err
	}
	records := make([]*E, len(items))
	err = s.Write(ctx, true, func(ctx context.Context, w Writer) error {
		return op.bulkWrite(ctx, s, w, team, rules, changes, b, records)
	})
	if err != nil {
		if errors.Is(err, db.ErrConflict) {
			if named := op.bulkConflict(ctx, s, err, b.inputs, b.ids); named != nil {
				return 0, nil, named
			}
		}
		return 0, nil, op.writeError(err)
	}
	if err := loadEmbeds(ctx, s.reader(ctx), op.Res, team, records); err != nil {
		return 0, nil, err
	}
	for i, id := range b.ids {
		committed(ctx, s, op.Res, team, id, records[i])
	}
	return http.StatusCreated, &Result[E]{Records: records, Created: true, bulk: true}, nil
}

// bulkBatch is a bulk create's elements, read.
type bulkBatch[E any] struct {
	inputs []Input[E]
	ids    []string       // each element's id, given or made
	given  []string       // the ids the client chose
	at     map[string]int // each id's index
}

// bulkRead reads every element of a bulk create, giving each without an id
// a new one; the faults of all of them (up to the most a problem lists)
// are answered at once.
func (op *Op[E]) bulkRead(ctx context.Context, items [][]byte) (*bulkBatch[E], error) {
	b := &bulkBatch[E]{inputs: make([]Input[E], len(items)), ids: make([]string, len(items)), at: map[string]int{}}
	var errs, denied []problem.MemberError
	for i, item := range items {
		if problem.Full(errs) || problem.Full(denied) {
			break // the request fails; more of its faults would not be listed
		}
		in, err := op.bulkItem(ctx, item)
		var p *problem.Error
		switch {
		case errors.As(err, &p) && p.Code == spec.PermissionDenied:
			denied = append(denied, underIndex(err, i)...)
			continue
		case err != nil:
			errs = append(errs, underIndex(err, i)...)
			continue
		}
		id, ok := in.GivenID()
		if ok {
			b.given = append(b.given, id)
		} else {
			id = spec.NewID()
			in.SetID(id)
		}
		if j, dup := b.at[id]; dup {
			errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].id", i), Problem: fmt.Sprintf("repeats [%d].id", j)})
		}
		b.at[id], b.inputs[i], b.ids[i] = i, in, id
	}
	if len(denied) > 0 {
		// What the role may not write is answered first, as for one
		// record: a 403 naming each element's members.
		return nil, &problem.Error{Code: spec.PermissionDenied, Members: denied,
			Detail: "the role " + accessOf(ctx).p.Role + " may not write " + memberNames(denied)}
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return b, nil
}

// bulkValidate runs the business rules' validations of every element,
// answering the faults of all of them at once; it returns each element's
// change for the rules' later steps (nil without rules).
func (op *Op[E]) bulkValidate(ctx context.Context, rules ruleRunner[E], team int, b *bulkBatch[E]) ([]*change[E], error) {
	changes := make([]*change[E], len(b.inputs))
	if rules == nil {
		return changes, nil
	}
	var errs []problem.MemberError
	for i, in := range b.inputs {
		changes[i] = &change[E]{kind: op.Kind, creating: true, id: b.ids[i], team: team, in: in}
		if err := rules.runValidate(ctx, changes[i]); err != nil {
			errs = append(errs, underIndex(err, i)...)
		}
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return changes, nil
}

// bulkWrite is a bulk create's transaction: the rules' before-write steps,
// the checks, the insert answering into records, the role's check of what
// was written, and each element's further steps.
func (op *Op[E]) bulkWrite(ctx context.Context, s *Service, w Writer, team int, rules ruleRunner[E], changes []*change[E], b *bulkBatch[E], records []*E) error {
	if rules != nil && rules.hasBeforeWrite() {
		for i, c := range changes {
			if err := rules.runBeforeWrite(ctx, w, c); err != nil {
				return problem.Prefix(err, fmt.Sprintf("[%d]", i))
			}
		}
	}
	if err := op.bulkChecks(ctx, w, team, b.inputs, b.ids, b.given); err != nil {
		return err
	}
	if err := bulkInsert(ctx, w, op.Res, team, b.inputs, b.ids, b.at, records); err != nil {
		return err
	}
	at := func(id string) string { return fmt.Sprintf("[%d].", b.at[id]) }
	if err := checkEach(ctx, w, op.Res, team, b.ids, policy.Create, at); err != nil {
		return err
	}
	for i, in := range b.inputs {
		steps, err := in.Then(true)
		for _, step := range steps {
			if err == nil {
				err = step(ctx, s, w, team, b.ids[i])
			}
		}
		if err != nil {
			return problem.Prefix(err, fmt.Sprintf("[%d]", i))
		}
	}
	return nil
}

// underIndex names the faults of the i-th element of a bulk create.
func underIndex(err error, i int) []problem.MemberError {
	at := fmt.Sprintf("[%d]", i)
	if p, ok := problem.Prefix(err, at).(*problem.Error); ok && len(p.Members) > 0 {
		return p.Members
	}
	var p *problem.Error
	if errors.As(err, &p) && p.Detail != "" {
		return []problem.MemberError{{Member: at, Problem: p.Detail}}
	}
	return []problem.MemberError{{Member: at, Problem: "must be an object of the record's members"}}
}

// bulkItem reads one element of a bulk create as a create's body.
func (op *Op[E]) bulkItem(ctx context.Context, item []byte) (Input[E], error) {
	members, err := ParseBody(item)
	if err != nil {
		return nil, err
	}
	req, err := op.parse("", members)
	if err != nil {
		return nil, err
	}
	if err := op.guardWrite(ctx, &req, policy.Create); err != nil {
		return nil, err
	}
	in, err := op.input(&req)
	if err != nil {
		return nil, err
	}
	if err := requireMembers(in, ""); err != nil {
		return nil, err
	}
	if _, err := in.Then(true); err != nil {
		return nil, err
	}
	return in, nil
}

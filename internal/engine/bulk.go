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
	inputs := make([]Input[E], len(items))
	ids := make([]string, len(items))
	var given []string // the ids the client chose
	at := map[string]int{}
	var errs []problem.MemberError
	for i, item := range items {
		if problem.Full(errs) {
			break // the request fails; more of its faults would not be listed
		}
		in, err := op.bulkItem(ctx, item)
		if err != nil {
			errs = append(errs, underIndex(err, i)...)
			continue
		}
		id, ok := in.GivenID()
		if ok {
			given = append(given, id)
		} else {
			id = spec.NewID()
			in.SetID(id)
		}
		if j, dup := at[id]; dup {
			errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].id", i), Problem: fmt.Sprintf("repeats [%d].id", j)})
		}
		at[id], inputs[i], ids[i] = i, in, id
	}
	if len(errs) > 0 {
		return 0, nil, problem.Members(errs)
	}
	if err := guard.MayWrite(ctx); err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	rules := rulesOf(s, op.Res)
	changes := make([]*change[E], len(items))
	if rules != nil {
		for i, in := range inputs {
			changes[i] = &change[E]{kind: op.Kind, creating: true, id: ids[i], team: team, in: in}
			if err := rules.runValidate(ctx, changes[i]); err != nil {
				errs = append(errs, underIndex(err, i)...)
			}
		}
		if len(errs) > 0 {
			return 0, nil, problem.Members(errs)
		}
	}
	records := make([]*E, len(items))
	err = s.Write(ctx, true, func(ctx context.Context, w Writer) error {
		if rules != nil && rules.hasBeforeWrite() {
			for i, c := range changes {
				if err := rules.runBeforeWrite(ctx, w, c); err != nil {
					return problem.Prefix(err, fmt.Sprintf("[%d]", i))
				}
			}
		}
		if err := op.bulkChecks(ctx, w, team, inputs, ids, given); err != nil {
			return err
		}
		if err := bulkInsert(ctx, w, op.Res, team, inputs, ids, at, records); err != nil {
			return err
		}
		if err := checkWritten(ctx, w, op.Res, team, ids, policy.Create); err != nil {
			return err
		}
		for i, in := range inputs {
			steps, err := in.Then(true)
			for _, step := range steps {
				if err == nil {
					err = step(ctx, s, w, team, ids[i])
				}
			}
			if err != nil {
				return problem.Prefix(err, fmt.Sprintf("[%d]", i))
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, db.ErrConflict) {
			if named := op.bulkConflict(ctx, s, err, inputs, ids); named != nil {
				return 0, nil, named
			}
		}
		return 0, nil, op.writeError(err)
	}
	if err := loadEmbeds(ctx, s.reader(ctx), op.Res, team, records); err != nil {
		return 0, nil, err
	}
	for i, id := range ids {
		committed(ctx, s, op.Res, team, id, records[i])
	}
	return http.StatusCreated, &Result[E]{Records: records, Created: true, bulk: true}, nil
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

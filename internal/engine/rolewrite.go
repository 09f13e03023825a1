package engine

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
)

// policyOp is the operation of the role's policies an operation of this
// kind runs (get-or-create and upsert decide between two as they go).
func (op *Op[E]) policyOp() (policy.Op, bool) {
	switch op.Kind {
	case spec.List, spec.Get:
		return policy.Read, true
	case spec.Create:
		return policy.Create, true
	case spec.Patch, spec.Action:
		return policy.Update, true
	case spec.Delete:
		return policy.Delete, true
	case spec.Restore:
		return policy.Restore, true
	case spec.Revert:
		return policy.Update, true
	}
	return "", false
}

// permitted answers 403 permission_denied, before anything else is read,
// when the request's role lacks the operation this one runs.
func (op *Op[E]) permitted(ctx context.Context) error {
	a := accessOf(ctx)
	if a == nil {
		return nil
	}
	if pop, ok := op.policyOp(); ok {
		return a.may(op.Res, pop)
	}
	if op.Kind == spec.Upsert {
		// Which of the two it runs depends on whether the record exists.
		if a.may(op.Res, policy.Create) != nil && a.may(op.Res, policy.Update) != nil {
			return denyOp(a.p.Role, policy.Update, op.Res.Plural)
		}
	}
	return nil
}

// guardWrite checks, for a role, that it may run pop and write each member
// req gives, and on create sets its presets: a member it may not write, or
// a preset member given another value, is a 403 naming the member.
func (op *Op[E]) guardWrite(ctx context.Context, req *request, pop policy.Op) error {
	a := accessOf(ctx)
	if a == nil {
		return nil
	}
	rule, ok := a.role.Rule(op.Res.Plural, pop)
	if !ok {
		return denyOp(a.p.Role, pop, op.Res.Plural)
	}
	var errs []problem.MemberError
	preset := map[string]bool{}
	if pop == policy.Create {
		cols := op.Res.listing().list.Columns
		for _, pre := range rule.Presets {
			preset[pre.Member] = true
			raw, missing := pre.Value.Fill(&a.vars)
			if missing != "" {
				errs = append(errs, problem.MemberError{Member: pre.Member,
					Problem: fmt.Sprintf("is preset for the role %s from %s, which this caller's credentials do not carry", a.p.Role, missing)})
				continue
			}
			i := slices.IndexFunc(req.record, func(m namedMember) bool { return m.name == pre.Member })
			if i < 0 {
				req.record = append(req.record, namedMember{written: pre.Member, name: pre.Member, value: raw})
				continue
			}
			if !sameValue(cols[pre.Member], req.record[i].value, raw) {
				errs = append(errs, problem.MemberError{Member: req.record[i].written,
					Problem: fmt.Sprintf("is preset to %s for the role %s: leave it out or send that value", raw, a.p.Role)})
			}
		}
	}
	for _, m := range req.record {
		if preset[m.name] || !slices.Contains(op.Res.Members, m.name) || rule.Allows(m.name) {
			continue // an unknown member is a 400, answered as the body is decoded
		}
		errs = append(errs, problem.MemberError{Member: m.written,
			Problem: fmt.Sprintf("the role %s may not write this member on %s", a.p.Role, pop)})
	}
	if len(errs) > 0 {
		return &problem.Error{Code: spec.PermissionDenied, Members: errs,
			Detail: fmt.Sprintf("the role %s may not write %s", a.p.Role, memberNames(errs))}
	}
	return nil
}

func memberNames(errs []problem.MemberError) string {
	names := make([]string, len(errs))
	for i, e := range errs {
		names[i] = e.Member
	}
	return strings.Join(names, ", ")
}

// sameValue tells whether two JSON values are the same value of col.
func sameValue(col *query.Column, a, b []byte) bool {
	if col == nil {
		return string(a) == string(b)
	}
	va, errA := col.Parse(a)
	vb, errB := col.Parse(b)
	if errA != nil || errB != nil {
		return false
	}
	if ta, ok := va.(time.Time); ok {
		tb, ok := vb.(time.Time)
		return ok && ta.Equal(tb)
	}
	return reflect.DeepEqual(va, vb)
}

// mustCheck tells whether a write of pop must run in a transaction for its
// role's check: the check runs after the write, which it undoes.
func mustCheck(ctx context.Context, res scoped, pop policy.Op) bool {
	a := accessOf(ctx)
	if a == nil {
		return false
	}
	rule, ok := a.role.Rule(res.plural(), pop)
	return ok && rule.Check != nil
}

// checkWritten answers 403 naming the check's members unless every record
// of ids, as written, passes the role's check for pop. It runs in the
// write's transaction, after the write, which its error rolls back.
func checkWritten[E any](ctx context.Context, w Writer, res *Resource[E], team int, ids []string, pop policy.Op) error {
	return checkEach(ctx, w, res, team, ids, pop, nil)
}

// checkEach is checkWritten naming the members of each record that fails
// under the path at gives its id ([3]. for the fourth of a bulk create;
// nil: the members alone).
func checkEach[E any](ctx context.Context, w Writer, res *Resource[E], team int, ids []string, pop policy.Op, at func(id string) string) error {
	a := accessOf(ctx)
	if a == nil || len(ids) == 0 {
		return nil
	}
	rule, ok := a.role.Rule(res.Plural, pop)
	if !ok || rule.Check == nil {
		return nil
	}
	raw, _ := rule.Check.Fill(&a.vars)
	f, perrs := query.ParseFilter(raw, "check", res.listing().list.Columns)
	passed := map[string]bool{}
	if raw != nil && len(perrs) == 0 && f != nil {
		where, wargs := query.Where(a.s.Dialect, f)
		in, inArgs := inIDs(w, "id", ids)
		args := append(append([]any{team}, inArgs...), wargs...)
		_, err := w.Query(ctx, -1, `SELECT "id" FROM `+spec.Ident(res.Table)+` WHERE `+teamOnly+` AND `+in+` AND (`+where+`)`, args,
			func(rows *sql.Rows) error {
				var id string
				err := rows.Scan(&id)
				passed[id] = true
				return err
			})
		if err != nil {
			return err
		}
	}
	if len(passed) == len(ids) {
		return nil
	}
	members := checkMembers(f)
	var errs []problem.MemberError
	for _, id := range ids {
		if passed[id] {
			continue
		}
		prefix := ""
		if at != nil {
			prefix = at(id)
		}
		for _, m := range members {
			errs = append(errs, problem.MemberError{Member: prefix + m, Problem: fmt.Sprintf("the record as written fails the role %s's check on %s", a.p.Role, pop)})
		}
		if at == nil {
			break
		}
	}
	return &problem.Error{Code: spec.PermissionDenied, Members: errs,
		Detail: fmt.Sprintf("the record as written fails the check the role %s has on %s: %s", a.p.Role, pop, strings.Join(members, ", "))}
}

// checkMembers are the members a filter names, in order, once each.
func checkMembers(f *query.Filter) []string {
	var out []string
	var walk func(*query.Filter)
	walk = func(f *query.Filter) {
		if f == nil {
			return
		}
		if f.Col != nil && !slices.Contains(out, f.Col.Member) {
			out = append(out, f.Col.Member)
		}
		for _, k := range f.Kids {
			walk(k)
		}
	}
	walk(f)
	return out
}

// exists tells whether the team has a record with id, whatever a role's
// filter says: an upsert by a role updates it (under its update policy,
// which may answer 404) rather than try to create it.
func (op *Op[E]) exists(ctx context.Context, s *Service, id string) (bool, error) {
	team, err := teamOf(ctx)
	if err != nil {
		return false, err
	}
	found, err := existing(ctx, s.reader(ctx), op.Res.Table, []string{id}, team)
	return found[id], err
}

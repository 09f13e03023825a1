package engine

import (
	"context"
	"database/sql"
	"sync"

	"records/internal/auth"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
)

// access is what a request's role may do (DESIGN §15), for a principal
// whose role is not admin. An admin's request has none: nothing is
// narrowed, and nothing here costs it anything.
type access struct {
	s    *Service
	p    *auth.Principal
	role *policy.Role // nil: a role the policies do not declare, which may do nothing
	vars policy.Vars
	// conds are the role's conditions compiled so far in this request.
	conds []compiled
}

// compiled is the SQL of a role's filter for one resource and operation.
type compiled struct {
	plural string
	op     policy.Op
	text   string // " AND (…)", "" when the rule has no filter
	args   []any
}

type accessKey struct{}

// accessOf is the request's access; nil for admin.
func accessOf(ctx context.Context) *access {
	a, _ := ctx.Value(accessKey{}).(*access)
	return a
}

// withAccess returns ctx carrying the access of its principal's role, or
// ctx itself for admin (and for a context with no principal: tests, the
// service's own work).
func (s *Service) withAccess(ctx context.Context) context.Context {
	p := auth.PrincipalOf(ctx)
	if p == nil || p.Admin() {
		return ctx
	}
	a := &access{s: s, p: p, role: s.Policies.Role(p.Role)}
	a.vars = policy.Vars{Sub: p.Subject, Team: p.TeamName, Role: p.Role, Claims: p.Claims}
	return context.WithValue(ctx, accessKey{}, a)
}

// scoped is a resource as the one place that scopes statements needs it.
type scoped interface {
	plural() string
	listing() *listing
}

// teamOnly is the condition of an admin's statements: the team's rows
// that are not in the trash.
const teamOnly = `"team_id" = ?` + liveOnly

// rowScope is the one place where a statement learns which rows of the
// resource's table it may touch: the team's, those not in the trash unless
// the request asked for the trash (trash.go), and of those, for a role
// other than admin, the ones its filter for op lets through (and of the
// trash, those its restore filter lets through too). It answers the
// condition, and args with its parameters appended. Every read and write
// of a record goes through it, so a role's filter and the trash are part
// of the statement itself — a list, a count, a cursor's page, an export,
// an expansion, an update's or delete's WHERE — never applied by reading
// and discarding.
func rowScope(ctx context.Context, res scoped, op policy.Op, team int, args []any) (string, []any) {
	args = append(args, team)
	scope := teamOnly
	t := trashOf(ctx)
	if t != Live {
		scope = `"team_id" = ?` + t.cond()
	}
	a := accessOf(ctx)
	if a == nil {
		return scope, args
	}
	c := a.cond(res, op)
	scope, args = scope+c.text, append(args, c.args...)
	if t == Live || op != policy.Read {
		return scope, args
	}
	// A role reads of the trash what its restore filter lets through.
	r := a.cond(res, policy.Restore)
	switch {
	case r.text == "":
	case t == TrashOnly:
		scope += r.text
	default:
		scope += ` AND ("deleted_at" IS NULL OR (1 = 1` + r.text + `))`
	}
	return scope, append(args, r.args...)
}

// denied is the condition of an operation the role lacks, or whose filter
// cannot hold for this caller: no row.
const denied = " AND 1 = 0"

// cond compiles the role's filter for op on res, once a request.
func (a *access) cond(res scoped, op policy.Op) compiled {
	plural := res.plural()
	for _, c := range a.conds {
		if c.plural == plural && c.op == op {
			return c
		}
	}
	c := compiled{plural: plural, op: op}
	rule, ok := a.role.Rule(plural, op)
	switch {
	case !ok:
		c.text = denied
	case rule.Filter != nil:
		c.text, c.args = a.compile(rule.Filter, res)
		if c.text == "" {
			c.text = denied
		} else {
			c.text = " AND (" + c.text + ")"
		}
	}
	a.conds = append(a.conds, c)
	return c
}

// compile fills a filter or check with the caller's values and compiles it
// for res's table: "" when it cannot hold for this caller — a claim it
// lacks, or a value its member cannot take — which fails closed.
func (a *access) compile(t *policy.Template, res scoped) (string, []any) {
	raw, missing := t.Fill(&a.vars)
	if missing != "" {
		return "", nil
	}
	f, errs := query.ParseFilter(raw, "filter", res.listing().list.Columns)
	if len(errs) > 0 || f == nil {
		return "", nil
	}
	return query.Where(a.s.Dialect, f)
}

// may answers 403 permission_denied when the role lacks op on res.
func (a *access) may(res scoped, op policy.Op) error {
	if a == nil {
		return nil
	}
	if _, ok := a.role.Rule(res.plural(), op); ok {
		return nil
	}
	return denyOp(a.p.Role, op, res.plural())
}

func denyOp(role string, op policy.Op, plural string) error {
	return problem.New(spec.PermissionDenied, "the role %s may not %s %s", role, op, plural)
}

// roleView is what a role may see of one resource: the members it may read
// (by index in Resource.Fields; nil: all) and the list parameters that may
// name them. It is made once per role and resource.
type roleView struct {
	readable []bool
	list     query.List
}

type roleViewKey struct {
	role   *policy.Role
	plural string
}

// roleViews caches roleView by role and resource.
var roleViews sync.Map

// view is what the role may see of res (built from its fields).
func (a *access) view(res scoped) *roleView {
	key := roleViewKey{a.role, res.plural()}
	if v, ok := roleViews.Load(key); ok {
		return v.(*roleView)
	}
	l := res.listing()
	rv := &roleView{list: query.List{Columns: query.Columns{}, Extra: l.list.Extra, Search: l.list.Search}}
	rule, ok := a.role.Rule(res.plural(), policy.Read)
	for _, m := range l.searched {
		// The index holds every searched member's words at once: a role
		// that may not read one of them may not search.
		if rv.list.Search != nil && !(ok && rule.Allows(m)) {
			rv.list.Search = nil
			rv.list.NoSearch = "the role " + a.p.Role + " may not read " + m + ", which a search of " + res.plural() + " looks in"
		}
	}
	rv.readable = make([]bool, len(l.list.Members))
	for i, m := range l.list.Members {
		rv.readable[i] = m == "id" || m == "version" || ok && rule.Allows(m)
		if !rv.readable[i] {
			continue
		}
		rv.list.Members = append(rv.list.Members, m)
		if col, ok := l.list.Columns[m]; ok {
			rv.list.Columns[m] = col
		}
	}
	for _, e := range l.list.Edges {
		if _, ok := a.role.Rule(a.s.edgeTarget(e), policy.Read); ok {
			rv.list.Edges = append(rv.list.Edges, e)
		}
	}
	v, _ := roleViews.LoadOrStore(key, rv)
	return v.(*roleView)
}

// edgeTarget is the plural of the resource an edge named name leads to:
// edges are named by their children's plural, or by their parent's object
// name (DESIGN §10); "" when none is.
func (s *Service) edgeTarget(name string) string {
	if _, ok := s.resources[name]; ok {
		return name
	}
	return s.objects[name]
}

// encoder is how the request writes records of res: whole, or without the
// members its role may not read (expanded records, embeds).
func encoder[E any](ctx context.Context, res *Resource[E]) func([]byte, *E) []byte {
	a := accessOf(ctx)
	if a == nil {
		return res.Encode
	}
	v := &view[E]{fields: a.view(res).readable}
	return func(b []byte, e *E) []byte { return v.appendRecord(b, res, 0, e) }
}

// listOf is what the request's lists of res may name: every member, edge
// and filter, or for a role those it may read.
func listOf[E any](ctx context.Context, res *Resource[E]) query.List {
	if a := accessOf(ctx); a != nil {
		return a.view(res).list
	}
	return res.listing().list
}

// History is what a request may see of a record's history (DESIGN §15:
// histories are a read): for admin, nil and everything; for a role, 403
// without read on the resource, 404 unless the record exists now within
// its read filter, and else the writer of the history's records without
// the members the role may not read.
func (s *Service) History(ctx context.Context, plural, id string) (Imager, error) {
	ctx = s.withAccess(ctx)
	a := accessOf(ctx)
	if a == nil {
		return nil, nil
	}
	res, ok := s.resources[plural].(Described)
	if !ok {
		return nil, problem.New(problem.NotFound, "no resource %s", plural)
	}
	if err := a.may(res, policy.Read); err != nil {
		return nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	visible, err := res.visible(ctx, s.reader(ctx), team, id)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, problem.New(problem.NotFound, "no record of %s has id %q", plural, id)
	}
	return res.masked(a.view(res).readable), nil
}

// visible tells whether the record with id is one the request may read.
func (res *Resource[E]) visible(ctx context.Context, r Reader, team int, id string) (bool, error) {
	cond, args := rowScope(ctx, res, policy.Read, team, []any{id})
	found := false
	err := r.Each(ctx, 1, `SELECT 1 FROM `+spec.Ident(res.Table)+` WHERE "id" = ? AND `+cond, args,
		func(*sql.Rows) error { found = true; return nil })
	return found, err
}

// maskedImager writes a resource's event images without the members a
// role may not read.
type maskedImager[E any] struct {
	res  *Resource[E]
	view *view[E]
}

func (m maskedImager[E]) AppendImage(b []byte, image string) ([]byte, error) {
	e, err := m.res.scanImage([]byte(image))
	if err != nil {
		return b, err
	}
	return m.view.appendRecord(b, m.res, 0, e), nil
}

func (res *Resource[E]) masked(readable []bool) Imager {
	return maskedImager[E]{res: res, view: &view[E]{fields: readable}}
}

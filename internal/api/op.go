package api

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/gin-gonic/gin"

	"records/ent"
	"records/internal/auth"
	"records/internal/problem"
	"records/internal/wire"
)

// Op is one operation of the route table, for resource entity type E.
// Generated code fills one per table entry (and per generic route); every
// difference between operations is a field here.
type Op[E any] struct {
	Name string
	Kind Kind
	Res  *Resource[E]
	// IDMembers are the body members that carry the record's id; when
	// several are given, they must agree (and agree with the path's id).
	IDMembers []string
	// Wrapper is a body member that may hold the record's members, as in
	// Update Return's {"return_id", "return": {…}}.
	Wrapper string
	// Aliases maps accepted member names to the resource's members.
	Aliases map[string]string
	// Ignore lists members that are accepted and dropped.
	Ignore []string
	// Filters lists top-level members a list takes as exact filters.
	Filters []string
	// Set holds the members an action writes.
	Set []wire.Member
	// By is a member naming a parent: a delete given it deletes every
	// record of that parent. ByColumn is its column.
	By, ByColumn string
	// IDOptional lets an upsert without an id create with a new one.
	IDOptional bool
	// Secret makes an upsert that creates also make a secret, answered once.
	Secret bool
	// Envelope writes the success body.
	Envelope func(b []byte, r *Result[E]) []byte
}

// Handler returns the gin handler of the operation.
func (op *Op[E]) Handler(s *Service) gin.HandlerFunc {
	return func(c *gin.Context) {
		status, r, err := op.serve(s, c)
		if err != nil {
			Fail(c, err)
			return
		}
		buf := getBuffer()
		buf.b = op.Envelope(buf.b, r)
		writeJSON(c, status, buf.b)
		putBuffer(buf)
	}
}

// request is a parsed request: the record's id (from the path or the body),
// a parent id for a delete by parent, and the record's members.
type request struct {
	id     string
	hasID  bool
	idFrom string // where the id was found, for messages
	by     string
	hasBy  bool
	record []namedMember
}

// namedMember is a record member with the name the client wrote (for
// errors) and the resource's name for it (after aliases).
type namedMember struct {
	written string
	name    string
	value   []byte
}

func (op *Op[E]) serve(s *Service, c *gin.Context) (int, *Result[E], error) {
	body, err := s.readBody(c)
	if err != nil {
		return 0, nil, err
	}
	members, err := parseBody(body)
	if err != nil {
		return 0, nil, err
	}
	ctx := c.Request.Context()
	if op.Kind == List {
		return op.list(ctx, s, c, members)
	}
	if c.Request.URL.RawQuery != "" {
		q := c.Request.URL.Query()
		if op.Kind.Writes() == Always {
			return 0, nil, problem.New(problem.InvalidRequest, "this operation takes no query parameters; send the members in a JSON body")
		}
		members = withQuery(members, q)
	}
	parsed, err := op.parse(c.Param("id"), members)
	if err != nil {
		return 0, nil, err
	}
	req := &parsed
	switch op.Kind {
	case Get:
		return op.get(ctx, s, req)
	case GetOrCreate:
		return op.getOrCreate(ctx, s, req)
	case Create:
		return op.create(ctx, s, req)
	case Patch:
		return op.patch(ctx, s, req)
	case Upsert:
		return op.upsert(ctx, s, req)
	case Action:
		return op.action(ctx, s, req)
	case Delete:
		return op.delete(ctx, s, req)
	}
	return 0, nil, fmt.Errorf("operation %s has unknown kind %q", op.Name, op.Kind)
}

// parse sorts the body's members into the id, the parent of a delete by
// parent, and the record's members, applying aliases and dropping ignored
// members. Every problem found is reported at once.
func (op *Op[E]) parse(pathID string, members []wire.Member) (request, error) {
	var req request
	var errs []problem.MemberError
	if pathID != "" {
		if err := wire.CheckID(pathID); err != nil {
			return req, problem.Member("id", "%s", err.Error())
		}
		req.id, req.hasID, req.idFrom = pathID, true, "the id in the path"
	}
	prefix := ""
	if op.Wrapper != "" {
		if inner, ok := findMember(members, op.Wrapper); ok {
			wrapped, err := wire.ParseObject(inner)
			if err != nil || wire.Kind(inner) != "an object" {
				return req, problem.Member(op.Wrapper, "must be an object holding the record's members")
			}
			for _, m := range members {
				if m.Name != op.Wrapper && !slices.Contains(op.IDMembers, m.Name) && !slices.Contains(op.Ignore, m.Name) {
					errs = append(errs, problem.MemberError{Member: m.Name, Problem: fmt.Sprintf("unknown member beside %q; the record's members go inside it", op.Wrapper)})
				}
			}
			for _, m := range members {
				if slices.Contains(op.IDMembers, m.Name) {
					errs = op.takeID(&req, m.Name, m.Value, errs)
				}
			}
			members, prefix = wrapped, op.Wrapper+"."
		}
	}
	for _, m := range members {
		name := m.Name
		if alias, ok := op.Aliases[name]; ok {
			name = alias
		}
		switch {
		case slices.Contains(op.Ignore, name):
		case slices.Contains(op.IDMembers, name):
			errs = op.takeID(&req, prefix+m.Name, m.Value, errs)
		case op.By != "" && name == op.By:
			v, err := wire.ID(m.Value)
			if err != nil {
				errs = append(errs, problem.MemberError{Member: prefix + m.Name, Problem: err.Error()})
				continue
			}
			req.by, req.hasBy = v, true
		default:
			req.record = append(req.record, namedMember{written: prefix + m.Name, name: name, value: m.Value})
		}
	}
	if len(errs) > 0 {
		return req, problem.Members(errs)
	}
	return req, nil
}

// takeID records an id given by member, which must agree with any other.
func (op *Op[E]) takeID(req *request, member string, v []byte, errs []problem.MemberError) []problem.MemberError {
	id, err := wire.ID(v)
	switch {
	case err != nil:
		return append(errs, problem.MemberError{Member: member, Problem: err.Error()})
	case req.hasID && id != req.id:
		return append(errs, problem.MemberError{Member: member, Problem: fmt.Sprintf("must equal %s (%q)", req.idFrom, req.id)})
	}
	req.id, req.hasID, req.idFrom = id, true, member
	return errs
}

// input decodes the record's members into a new input, reporting every
// unknown, read-only or invalid member at once.
func (op *Op[E]) input(req *request) (Input[E], error) {
	in := op.Res.NewInput()
	var errs []problem.MemberError
	for _, m := range req.record {
		if err := in.Decode(m.name, m.value); err != nil {
			errs = append(errs, memberErrors(err, m.written, m.name, op.validNames())...)
		}
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	if req.hasID {
		in.SetID(req.id)
	}
	return in, nil
}

// validNames are the names the operation's body may carry, for suggestions.
func (op *Op[E]) validNames() []string {
	names := append([]string(nil), op.Res.Members...)
	names = append(names, op.IDMembers...)
	for a := range op.Aliases {
		names = append(names, a)
	}
	return append(names, op.Ignore...)
}

// onlyID refuses record members on an operation that takes nothing but an id.
func (op *Op[E]) onlyID(req *request, why string) error {
	if len(req.record) == 0 {
		return nil
	}
	errs := make([]problem.MemberError, len(req.record))
	for i, m := range req.record {
		errs[i] = problem.MemberError{Member: m.written, Problem: why}
	}
	return problem.Members(errs)
}

// requireID fails when no id was given.
func (op *Op[E]) requireID(req *request) error {
	if req.hasID {
		return nil
	}
	member := "id"
	if len(op.IDMembers) > 0 {
		member = op.IDMembers[0]
	}
	return problem.Member(member, "is required")
}

func (op *Op[E]) list(ctx context.Context, s *Service, c *gin.Context, members []wire.Member) (int, *Result[E], error) {
	var query url.Values
	if c.Request.URL.RawQuery != "" {
		query = c.Request.URL.Query()
	}
	q, err := parseListQuery(members, query, op.Res.Columns, op.Filters)
	if err != nil {
		return 0, nil, err
	}
	if id := c.Param("id"); id != "" {
		q.Filters = append(q.Filters, Filter{Column: "id", Value: id})
	}
	ctx, cancel, err := s.readContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer cancel()
	records, err := page(ctx, s.Reader, op.Res, q)
	if err != nil {
		return 0, nil, err
	}
	r := &Result[E]{Paging: Paging{Limit: q.Limit, Offset: q.Offset}}
	if len(records) > q.Limit {
		records, r.Paging.HasMore = records[:q.Limit], true
	}
	r.Records = records
	return http.StatusOK, r, nil
}

func (op *Op[E]) get(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "a read takes only the id"); err != nil {
		return 0, nil, err
	}
	return op.read(ctx, s, req.id)
}

func (op *Op[E]) read(ctx context.Context, s *Service, id string) (int, *Result[E], error) {
	ctx, cancel, err := s.readContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer cancel()
	rec, found, err := find(ctx, s.Reader, op.Res, id)
	switch {
	case err != nil:
		return 0, nil, err
	case !found:
		return 0, nil, notFound(op.Res.Object, id)
	}
	return http.StatusOK, &Result[E]{Record: rec, ID: id}, nil
}

func (op *Op[E]) getOrCreate(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if req.hasID {
		if err := op.onlyID(req, "a read never writes: with an id, the body holds nothing else"); err != nil {
			return 0, nil, err
		}
		return op.read(ctx, s, req.id)
	}
	return op.create(ctx, s, req)
}

func (op *Op[E]) create(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	if err := mayWrite(ctx); err != nil {
		return 0, nil, err
	}
	r := &Result[E]{Created: true}
	err = s.inTx(ctx, func(c *ent.Client) error {
		id, err := in.Create(ctx, c)
		if err != nil {
			return err
		}
		r.Record, err = op.Res.Reload(ctx, c, id)
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	r.ID = op.Res.ID(r.Record)
	return http.StatusCreated, r, nil
}

func (op *Op[E]) patch(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	r := &Result[E]{ID: req.id}
	err = s.inTx(ctx, func(c *ent.Client) error {
		if err := in.Update(ctx, c, req.id); err != nil {
			return err
		}
		r.Record, err = op.Res.Reload(ctx, c, req.id)
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	return http.StatusOK, r, nil
}

// upsert updates the record with the id, or creates it. Two clients
// creating one id at once: the loser's insert fails on the key, and its
// retry finds the record and updates it. A key taken by another team stays
// a conflict.
func (op *Op[E]) upsert(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if !op.IDOptional {
		if err := op.requireID(req); err != nil {
			return 0, nil, err
		}
	}
	in, err := op.input(req)
	if err != nil {
		return 0, nil, err
	}
	var r *Result[E]
	for attempt := 0; ; attempt++ {
		r = &Result[E]{ID: req.id}
		err = s.inTx(ctx, func(c *ent.Client) error {
			exists := false
			if req.hasID {
				var err error
				if exists, err = op.Res.Exists(ctx, c, req.id, s.RowLocks); err != nil {
					return err
				}
			}
			id := req.id
			if exists {
				if err := in.Update(ctx, c, id); err != nil {
					return err
				}
			} else {
				if op.Secret {
					r.Secret = auth.NewSecret("sk_")
					op.Res.SetSecret(in, auth.HashSecret(r.Secret))
				}
				var err error
				if id, err = in.Create(ctx, c); err != nil {
					return err
				}
				r.Created = true
			}
			var err error
			r.Record, err = op.Res.Reload(ctx, c, id)
			return err
		})
		if err == nil || attempt == 1 || !ent.IsConstraintError(err) || !req.hasID {
			break
		}
	}
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	r.ID = op.Res.ID(r.Record)
	status := http.StatusOK
	if r.Created {
		status = http.StatusCreated
	}
	return status, r, nil
}

func (op *Op[E]) action(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "this operation takes no member but the id"); err != nil {
		return 0, nil, err
	}
	in := op.Res.NewInput()
	for _, m := range op.Set {
		if err := in.Decode(m.Name, m.Value); err != nil {
			return 0, nil, fmt.Errorf("operation %s sets %s: %w", op.Name, m.Name, err)
		}
	}
	err := s.inTx(ctx, func(c *ent.Client) error { return in.Update(ctx, c, req.id) })
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	return http.StatusOK, &Result[E]{ID: req.id}, nil
}

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
		var n int
		err := s.inTx(ctx, func(c *ent.Client) (err error) {
			n, err = op.Res.DeleteWhere(ctx, c, op.ByColumn, req.by)
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
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	err := s.inTx(ctx, func(c *ent.Client) error { return op.Res.Delete(ctx, c, req.id) })
	if err != nil {
		return 0, nil, op.writeError(err, req.id)
	}
	return http.StatusOK, &Result[E]{ID: req.id}, nil
}

// writeError classifies the error of a write: not found, a taken unique
// value, or whatever else it was.
func (op *Op[E]) writeError(err error, id string) error {
	switch {
	case ent.IsNotFound(err):
		return notFound(op.Res.Object, id)
	case ent.IsConstraintError(err):
		return conflict(err, op.Res.Unique)
	}
	return err
}

// mayWrite answers 403 for a principal that may only read.
func mayWrite(ctx context.Context) error {
	if p, ok := auth.FromContext(ctx); ok && !p.CanWrite() {
		return problem.New(problem.Forbidden, "this token may only read; this request would write")
	}
	return nil
}

// inTx runs fn in one transaction: all of it is written, or none.
func (s *Service) inTx(ctx context.Context, fn func(c *ent.Client) error) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := s.Client.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx.Client()); err != nil {
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			return errors.Join(err, rerr)
		}
		return err
	}
	return tx.Commit()
}

func findMember(members []wire.Member, name string) ([]byte, bool) {
	for _, m := range members {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// withQuery adds the query parameters as members, each a JSON string (the
// converters accept numbers and booleans written as strings). The body wins.
func withQuery(members []wire.Member, query map[string][]string) []wire.Member {
	for name, vs := range query {
		if _, ok := findMember(members, name); ok {
			continue
		}
		members = append(members, wire.Member{Name: name, Value: wire.AppendString(nil, vs[len(vs)-1])})
	}
	return members
}

package engine

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// Op is one operation of the route table, for resource entity type E.
// Generated code fills one per table entry (and per generic route); every
// difference between operations is a field here.
type Op[E any] struct {
	Name string
	Kind spec.Kind
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
	// ETag: the envelope is the plain record, so answers carry its version
	// as ETag, and a read honours If-None-Match.
	ETag bool
	// Envelope writes the success body.
	Envelope func(b []byte, r *Result[E]) []byte
}

// Handler returns the gin handler of the operation: parse, run, render.
// A write sent with an Idempotency-Key runs in one transaction with the
// storing of its answer (see serveKeyed).
func (op *Op[E]) Handler(s *Service) gin.HandlerFunc {
	return func(c *gin.Context) {
		// A role other than admin: its access rides in the request's
		// context, and an operation it lacks is refused before the body
		// is read.
		if ctx := s.withAccess(c.Request.Context()); ctx != c.Request.Context() {
			c.Request = c.Request.WithContext(ctx)
			if err := op.permitted(ctx); err != nil {
				edge.Fail(c, err)
				return
			}
		}
		body, err := s.ReadBody(c)
		if err != nil {
			edge.Fail(c, err)
			return
		}
		key, keyed, err := IdempotencyKey(c.Request)
		if err == nil && !keyed && (op.Kind == spec.Get || op.Kind == spec.List) {
			// Reads of records may run on a replica; get-or-create and
			// every write use the primary.
			err = s.routeRead(c)
		}
		switch {
		case err != nil:
			edge.Fail(c, err)
		case keyed:
			op.serveKeyed(s, c, key, body)
		default:
			status, r, err := op.serve(s, c, body)
			op.answer(c, status, r, err)
		}
	}
}

// answer renders the outcome of serve.
func (op *Op[E]) answer(c *gin.Context, status int, r *Result[E], err error) {
	switch {
	case err != nil:
		edge.Fail(c, err)
	case r == nil: // answered already (an export)
	case r.notModified:
		c.Writer.Header().Set("ETag", etag(op.Res.Version(r.Record)))
		c.Status(http.StatusNotModified)
	case !op.digested(r):
		if tag := op.etag(r, nil); tag != "" {
			c.Writer.Header().Set("ETag", tag)
		}
		edge.WriteJSON(c, status, func(b []byte) []byte { return op.render(b, r) })
		r.release()
	default:
		// The ETag is a digest of the answer: rendered first, and
		// If-None-Match checked against it.
		buf := edge.GetBuffer()
		defer edge.PutBuffer(buf)
		buf.B = op.render(buf.B, r)
		r.release()
		tag := op.etag(r, buf.B)
		c.Writer.Header().Set("ETag", tag)
		if r.ifNoneMatch != nil && r.ifNoneMatch.listsTag(tag) {
			c.Status(http.StatusNotModified)
			return
		}
		edge.WriteJSON(c, status, func(b []byte) []byte { return append(b, buf.B...) })
	}
}

// render appends the success body of r: the operation's envelope, or the
// records of a bulk create under the plural.
func (op *Op[E]) render(b []byte, r *Result[E]) []byte {
	r.res = op.Res
	if r.bulk {
		b = append(b, `{"`+op.Res.Plural+`":`...)
		return append(r.AppendRecords(b), '}')
	}
	return op.Envelope(b, r)
}

// etag is the ETag of body, the answer r that is one record, else "": the
// record's version when the answer is the record alone; when it is more
// (line items it embeds, records expand= adds) or less (fields=), the
// version and a digest of the answer, "3-9f86d081884c7d65", which changes
// when the related records do though the record's version does not.
func (op *Op[E]) etag(r *Result[E], body []byte) string {
	if !op.ETag || r.Record == nil || r.bulk {
		return ""
	}
	v := op.Res.Version(r.Record)
	if !op.digested(r) {
		return etag(v)
	}
	h := fnv.New64a()
	h.Write(body)
	return `"` + strconv.FormatInt(v, 10) + "-" + strconv.FormatUint(h.Sum64(), 16) + `"`
}

// keptAnswer is r as a keyed write keeps and answers it.
func (op *Op[E]) keptAnswer(status int, r *Result[E]) *Answer {
	body := op.render(nil, r)
	return &Answer{Status: status, Body: body, ETag: op.etag(r, body), Secret: op.Secret}
}

// digested tells whether the ETag of r is a digest of its answer (see
// etag).
func (op *Op[E]) digested(r *Result[E]) bool {
	return op.ETag && r.Record != nil && !r.bulk && op.partial(r.view)
}

// partial tells whether an answer of the view is other than the record
// alone: see etag.
func (op *Op[E]) partial(v *view[E]) bool { return v != nil || op.Res.LoadEmbeds != nil }

// bulkAt tells whether the request may be a bulk create: a create, or an
// update that creates without an id (Update Case) at POST /v1/<plural>,
// which it takes from the plural's create.
func (op *Op[E]) bulkAt(c *gin.Context) bool {
	return op.Kind == spec.Create ||
		op.Kind == spec.Upsert && spec.UpdateTakesBulk(op.IDOptional, c.Request.Method, c.FullPath(), op.Res.Plural)
}

// serve runs the operation; what it answers of records, a role other than
// admin sees without the members it may not read.
func (op *Op[E]) serve(s *Service, c *gin.Context, body []byte) (int, *Result[E], error) {
	status, r, err := op.run(s, c, body)
	if r != nil && r.view == nil {
		if a := accessOf(c.Request.Context()); a != nil {
			r.view = &view[E]{fields: a.view(op.Res).readable}
		}
	}
	return status, r, err
}

func (op *Op[E]) run(s *Service, c *gin.Context, body []byte) (int, *Result[E], error) {
	if op.bulkAt(c) && isArray(body) {
		if c.Request.URL.RawQuery != "" {
			return 0, nil, problem.New(problem.InvalidRequest, "this operation takes no query parameters; send the members in a JSON body")
		}
		return op.bulk(c.Request.Context(), s, body)
	}
	members, err := ParseBody(body)
	if err != nil {
		return 0, nil, err
	}
	ctx := c.Request.Context()
	if op.Kind == spec.List {
		return op.list(ctx, s, c, members)
	}
	permanent := false
	if c.Request.URL.RawQuery != "" {
		q, err := url.ParseQuery(c.Request.URL.RawQuery)
		if err != nil {
			return 0, nil, problem.New(problem.InvalidRequest, "the query string is malformed: %v", err)
		}
		if permanent, err = takePermanent(op.Kind, q); err != nil {
			return 0, nil, err
		}
		if op.Kind.Writes() == spec.Always && len(q) > 0 {
			return 0, nil, problem.New(problem.InvalidRequest, "this operation takes no query parameters; send the members in a JSON body")
		}
		if members, err = withQuery(members, q); err != nil {
			return 0, nil, err
		}
	}
	parsed, err := op.parse(c.Param("id"), members)
	if err != nil {
		return 0, nil, err
	}
	req := &parsed
	req.permanent = permanent
	if err := op.preconditions(c.Request, req); err != nil {
		return 0, nil, err
	}
	switch op.Kind {
	case spec.Get:
		return op.get(ctx, s, req)
	case spec.GetOrCreate:
		if !req.hasID && c.Request.Method == http.MethodHead {
			// HEAD is safe (RFC 9110 §9.2.1): it never creates, and would
			// not even show what it created.
			return 0, nil, &problem.Error{Code: problem.MethodNotAllowed, Allow: []string{http.MethodGet},
				Detail: "HEAD never creates, and without an id this request would create a record: send GET to create, or name an id"}
		}
		return op.getOrCreate(ctx, s, req)
	case spec.Create:
		return op.create(ctx, s, req)
	case spec.Patch:
		return op.patch(ctx, s, req)
	case spec.Upsert:
		return op.upsert(ctx, s, req)
	case spec.Action:
		return op.action(ctx, s, req)
	case spec.Delete:
		return op.delete(ctx, s, req)
	case spec.Restore:
		return op.restore(ctx, s, req)
	case spec.Revert:
		return op.revert(ctx, s, req)
	}
	return 0, nil, fmt.Errorf("operation %s has unknown kind %q", op.Name, op.Kind)
}

// statusOf is 201 for a result that created its record, 200 otherwise.
func statusOf[E any](r *Result[E]) int {
	if r.Created {
		return http.StatusCreated
	}
	return http.StatusOK
}

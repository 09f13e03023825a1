package gen

import (
	"fmt"
	"strings"

	"records/internal/spec"
)

// components are what the paths refer to: the schemas named while they
// were built, and the shared parameters, answers, headers and security
// schemes (renderOpenAPI adds the answers and bodies operations share).
func (d *openAPIDoc) components(paths *obj) (*obj, error) {
	params, responses, headers := parameterComponents(d.m), responseComponents(), headerComponents()
	schemas, err := d.schemas.named(paths, params, responses, headers)
	if err != nil {
		return nil, err
	}
	return newObj(
		"schemas", schemas,
		"parameters", params,
		"responses", responses,
		"headers", headers,
		"securitySchemes", securitySchemes(),
	), nil
}

// headerComponents are the headers many answers carry.
func headerComponents() *obj {
	return newObj(
		"X-Request-Id", newObj("description", "The request's id: the client's own when sensible, else one the server made.",
			"schema", newObj("type", "string")),
		"ETag", etagHeader(),
		"Idempotent-Replayed", newObj("description", "true when the answer is the stored one of an earlier request with the same Idempotency-Key.",
			"schema", newObj("type", "string", "enum", []any{"true"})),
	)
}

// sharedSchemas defines the schemas every resource's refer to: ids, the
// parameters of lists, pages, problems, members' values, events and
// webhooks.
func (d *openAPIDoc) sharedSchemas() {
	c := d.schemas
	c.define("Id", newObj("type", "string", "minLength", 1, "maxLength", 255, "pattern", idPattern,
		"description", "A record's id: unique across teams; a UUIDv7 when the server makes it."))
	c.define("InputId", newObj("oneOf", []any{ref("Id"), ref("NumberAsText")}))
	// A page's numbers, which a client may also send as numeric strings.
	c.define("PageNumberText", newObj("type", "string", "pattern", "^\\s*-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?\\s*$",
		"description", "A number written as text."))
	c.define("LimitNumber", newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit))
	c.define("OffsetNumber", newObj("type", "integer", "minimum", 0, "maximum", spec.MaxOffset))
	c.define("Limit", newObj("oneOf", []any{ref("LimitNumber"), ref("PageNumberText")},
		"description", fmt.Sprintf("Records per page: 1 to %d, default %d.", spec.MaxLimit, spec.DefaultLimit)))
	c.define("Offset", newObj("oneOf", []any{ref("OffsetNumber"), ref("PageNumberText")}, "description", "Records to skip, default 0."))
	c.define("Direction", directionSchema())
	c.define("Paging", newObj("type", "object",
		"properties", newObj(
			"limit", newObj("type", "integer"),
			"offset", newObj("type", "integer"),
			"has_more", newObj("type", "boolean"),
			"next_cursor", newObj("type", []any{"string", "null"},
				"description", "Send as cursor (with the same filter and order) for the next page; null on the last page."),
			"total", newObj("type", "integer", "description", "With count: the records the filter matches."),
			"total_is_estimate", newObj("type", "boolean",
				"description", "With count=estimated: whether total came from PostgreSQL's planner statistics (only above 10,000)."),
		),
		"required", []any{"limit", "offset", "has_more", "next_cursor"}, "additionalProperties", false))
	c.define("Cursor", newObj("type", "string", "minLength", 1,
		"description", "An opaque cursor from paging.next_cursor; valid only with the filter and order it was made with, and never with an offset."))
	addMeSchemas(c)
	addAggregateSchemas(c)
	c.define("Count", newObj("type", "string", "enum", []any{"exact", "estimated"},
		"description", "Adds paging.total: exact counts; estimated uses the planner's statistics above 10,000 rows (PostgreSQL)."))
	c.define("NDJSONExport", newObj("type", "string",
		"description", "With Accept: application/x-ndjson: every matching record, one JSON object a line. "+
			"A failure midway ends the stream with a line {\"error\": problem} and cuts it off unterminated."))
	c.define("CSVExport", newObj("type", "string",
		"description", "With Accept: text/csv: every matching record, after a header row of member names (RFC 4180). "+
			"With trashed=only or include, two more columns, deleted_at and deleted_by (before expand): "+
			"filled on the rows of records in the trash, empty on live ones. "+
			"A failure midway cuts the stream off unterminated."))
	c.define("DeletedAt", newObj("type", "string", "format", "date-time",
		"description", "When the record went to the trash: present only on records in the trash (read with trashed=only or include)."))
	c.define("DeletedBy", newObj("type", []any{"string", "null"},
		"description", "Who moved the record to the trash (the caller's subject): present only on records in the trash."))
	c.define("Problem", problemSchema())
	c.define("MemberProblem", newObj("type", "object",
		"properties", newObj("member", newObj("type", "string"), "problem", newObj("type", "string")),
		"required", []any{"member", "problem"}, "additionalProperties", false))
	memberValueSchemas(c)
	addEventSchemas(d.m, c)
}

// problemSchema is the body of every error answer.
func problemSchema() *obj {
	var codes []any
	for _, p := range spec.Codes {
		codes = append(codes, string(p.Code))
	}
	return newObj(
		"type", "object",
		"description", "An RFC 9457 problem: type links to the code's description on the docs page.",
		"properties", newObj(
			"type", newObj("type", "string", "format", "uri-reference"),
			"title", newObj("type", "string"),
			"status", newObj("type", "integer"),
			"detail", newObj("type", "string"),
			"code", newObj("type", "string", "enum", codes),
			"success", newObj("const", 0),
			"request_id", newObj("type", "string", "description", "Equals the X-Request-Id header."),
			"errors", newObj("type", "array", "description", "The members at fault; empty when none is.",
				"items", ref("MemberProblem")),
		),
		"required", []any{"type", "title", "status", "detail", "code", "success", "request_id", "errors"},
		"additionalProperties", false,
	)
}

// resourceSchemas defines a resource's schemas: its record as answered,
// the names of its members and related records, the members a body
// writes, and its filters and orders.
func (d *openAPIDoc) resourceSchemas(r *resourceView) {
	d.recordSchemas(r)
	d.writeSchemas(r)
	d.filterSchemas(r)
}

// recordSchemas are a resource's record, whole (<Type>) and with only the
// members a request named (<Type>Sparse), either as a read answers it
// (<Type>Read), and the names a request may give in fields and expand.
func (d *openAPIDoc) recordSchemas(r *resourceView) {
	c := d.schemas
	props := newObj()
	var members []any
	for _, f := range r.Fields {
		props.set(f.Member, d.member(f).output)
		members = append(members, f.Member)
	}
	for _, e := range r.Embeds {
		props.set(e.Member, newObj("type", "array", "items", ref(e.Child.Type), "description", "Ordered by id."))
		members = append(members, e.Member)
	}
	if len(r.Expands) > 0 {
		expanded := newObj()
		var names []any
		for _, e := range r.Expands {
			names = append(names, e.Name)
			if e.Children {
				expanded.set(e.Name, newObj("type", "array", "items", ref(e.Other.Type),
					"description", fmt.Sprintf("Ordered by id; at most %d.", spec.MaxChildren)))
			} else {
				expanded.set(e.Name, c.name(schemaName{e.Other.Type + "OrNull", resourceName, e.Other.Type}, newObj("anyOf", []any{ref(e.Other.Type), newObj("type", "null")})))
			}
		}
		c.defineFor(r, r.Type+"Expanded", newObj("type", "object", "properties", expanded, "additionalProperties", false,
			"description", "Present only when expand named them."))
		props.set("expand", ref(r.Type+"Expanded"))
		d.namesSchemas(r, "Expand", names, "See Lists.")
	}
	props.set("deleted_at", ref("DeletedAt"))
	props.set("deleted_by", ref("DeletedBy"))
	// The members are written once, in the sparse form; the record is
	// that form with every member required.
	c.defineFor(r, r.Type+"Sparse", newObj("type", "object", "properties", props, "required", []any{"id"}, "additionalProperties", false,
		"description", "The members fields named, and the id."))
	c.defineFor(r, r.Type, newObj("type", "object", "allOf", []any{ref(r.Type + "Sparse")}, "required", members))
	c.defineFor(r, r.Type+"Read", newObj("anyOf", []any{ref(r.Type), ref(r.Type + "Sparse")}))
	d.namesSchemas(r, "Fields", members, "See Lists; the id (and version) always come.")
}

// namesSchemas define what a body names in r's fields or expand (what):
// an array of names, or one string of names separated by commas.
func (d *openAPIDoc) namesSchemas(r *resourceView, what string, names []any, desc string) {
	stem := r.Type + what
	one := strings.TrimSuffix(stem, "s")
	d.schemas.defineFor(r, one+"Name", newObj("type", "string", "enum", names))
	d.schemas.defineFor(r, one+"List", newObj("type", "array", "items", ref(one+"Name")))
	d.schemas.defineFor(r, stem, newObj("description", desc, "oneOf", []any{ref(one + "List"), ref("CommaSeparated")}))
}

// writeSchemas are the members a body may write (<Type>Members), and the
// resource's own body: those and its id (<Type>Write).
func (d *openAPIDoc) writeSchemas(r *resourceView) {
	members := newObj()
	for _, f := range r.Writable() {
		members.set(f.Member, d.member(f).input)
	}
	for _, e := range r.Embeds {
		members.set(e.Member, embedInput(e))
	}
	d.schemas.defineFor(r, r.Type+"Members", newObj("type", "object", "properties", members))
	d.schemas.defineFor(r, r.Type+"Write", newObj("type", "object", "allOf", []any{ref(r.Type + "Members")},
		"properties", newObj("id", ref("InputId")), "unevaluatedProperties", false))
	if req := r.requiredMembers(); len(req) > 0 {
		d.schemas.defineFor(r, r.Type+"Create", newObj("allOf", []any{ref(r.Type + "Write")}, "required", req,
			"description", "The members of a new record: those listed are required."))
	}
}

// filterSchemas are a resource's filters, in a body (<Type>Filter) and in
// a query string (<Type>FilterQuery), and its orders (<Type>OrderBy).
func (d *openAPIDoc) filterSchemas(r *resourceView) {
	filter := newObj()
	query := newObj()
	for _, f := range r.Filterable() {
		s := d.member(f)
		filter.set(f.Member, s.filter)
		query.set(f.Member, s.queryFilter)
	}
	self, selfQuery := ref(r.Type+"Filter"), ref(r.Type+"FilterQuery")
	// and, or and not are described once, in the intro's Lists.
	query.set("and", newObj("type", "array", "items", selfQuery))
	query.set("or", newObj("type", "array", "items", selfQuery))
	query.set("not", selfQuery)
	filter.set("and", newObj("type", "array", "items", self))
	filter.set("or", newObj("type", "array", "items", self))
	filter.set("not", self)
	d.schemas.defineFor(r, r.Type+"OrderBy", orderBySchema(r))
	d.schemas.defineFor(r, r.Type+"Filter", newObj("type", "object", "properties", filter, "additionalProperties", false,
		"description", "See Lists."))
	d.schemas.defineFor(r, r.Type+"FilterQuery", newObj("type", "object", "properties", query, "additionalProperties", false,
		"description", "See Lists."))
}

// responseComponents are the answers many operations share: every problem
// by status, and a read's 304.
func responseComponents() *obj {
	problem := newObj("application/problem+json", newObj("schema", ref("Problem")))
	retry := newObj("Retry-After", newObj("description", "Seconds to wait.", "schema", newObj("type", "integer")),
		"X-Request-Id", headerRef("X-Request-Id"))
	plain := newObj("X-Request-Id", headerRef("X-Request-Id"))
	respond := func(desc string, headers *obj) *obj {
		return newObj("description", desc, "headers", headers, "content", problem)
	}
	return newObj(
		"BadRequest", respond("The body or a parameter is wrong; errors names the members at fault.", plain),
		"Unauthorized", respond("No token, a malformed Authorization header, or an unknown, revoked or expired token.",
			newObj("WWW-Authenticate", newObj("schema", unauthorizedChallenge),
				"X-Request-Id", headerRef("X-Request-Id"))),
		"Forbidden", respond("The token may only read (forbidden), or the caller's role may not do this (permission_denied): "+
			"an operation its policies do not grant, a member it may not write, a preset changed, a check failed; errors names the members.", plain),
		"NotFound", respond("No such record in the caller's team.", plain),
		"MethodNotAllowed", respond("HEAD of a request that would create a record (HEAD never creates); Allow names GET.",
			newObj("Allow", newObj("schema", newObj("type", "string")), "X-Request-Id", headerRef("X-Request-Id"))),
		"RequestTimeout", respond("The body did not arrive in time (30 s by default); the connection is closed.", plain),
		"Conflict", respond("A unique value (an id, a username) is taken, or a request with the same Idempotency-Key is still running.", retry),
		"PreconditionFailed", respond("If-Match named versions the record is not at, or the record does not exist; nothing was written.", plain),
		"KeyReused", respond("The Idempotency-Key was used with another request.", plain),
		"PayloadTooLarge", respond("The body is over the limit (1 MiB by default).", plain),
		"UnsupportedMediaType", respond("The body is not JSON.", plain),
		"TooManyRequests", respond("The token's rate limit is exhausted.", retry),
		"InternalError", respond("A fault of the server; the request id finds it in the log.", plain),
		"Unavailable", respond("The database is unreachable or too slow.", retry),
		"ClientError", respond("A fault of the request, the status and code say which: "+
			"400 the body or a parameter is wrong (errors names the members at fault); "+
			"401 no token, a malformed Authorization header, or an unknown, revoked or expired token; "+
			"403 the token may only read, or the caller's role may not do this; "+
			"408 the body did not arrive in time; 413 the body is over the limit; 415 the body is not JSON; "+
			"429 the token's rate limit is exhausted.",
			newObj("WWW-Authenticate", newObj("description", "With 401.", "schema", unauthorizedChallenge),
				"Retry-After", newObj("description", "With 429: seconds to wait.", "schema", newObj("type", "integer")),
				"X-Request-Id", headerRef("X-Request-Id"))),
		"ServerError", respond("500: a fault of the server, which the request id finds in the log; "+
			"503: the database is unreachable or too slow.",
			newObj("Retry-After", newObj("description", "With 503: seconds to wait.", "schema", newObj("type", "integer")),
				"X-Request-Id", headerRef("X-Request-Id"))),
		// Public routes answer no problem of their own but this one.
		"MalformedRequest", newObj("description", "The request is not well-formed HTTP (a bad request line or header): "+
			"the HTTP server answers it itself, before any route, as plain text.",
			"content", newObj("text/plain", newObj("schema", newObj("type", "string")))),
		"NotModified", notModified(),
	)
}

// withETag are the public routes answered with an ETag, and 304 when
// If-None-Match lists it: the document, the docs page and its files
// (package docs), which a client fetches once.
var withETag = map[string]bool{spec.PathOpenAPI: true, spec.PathDocs: true, spec.PathDocsFile: true}

// publicOperation documents a route outside the generated operations that
// the server registers itself (a test compares the document with the
// server's routes).
func publicOperation(p spec.PublicRoute) *obj {
	o := newObj("operationId", p.OperationID, "summary", p.Summary, "tags", []any{"Service"}, "security", []any{})
	var params []any
	if strings.Contains(p.Path, ":file") {
		params = append(params, newObj("name", "file", "in", "path", "required", true, "schema", newObj("type", "string")))
	}
	media := newObj()
	if p.ContentType == "application/json" {
		media.set("schema", newObj("type", "object"))
	}
	ok := newObj("description", "OK.", "content", newObj(p.ContentType, media))
	resp := newObj("200", ok, "400", responseRef("MalformedRequest"))
	if withETag[p.Path] {
		params = append(params, paramRef("IfNoneMatch"))
		ok.set("headers", newObj("ETag", newObj("description", "The content's entity tag.", "schema", newObj("type", "string"))))
		resp.set("304", responseRef("NotModified"))
	}
	if len(params) > 0 {
		o.set("parameters", params)
	}
	if p.Path == spec.PathReady {
		resp.set("503", responseRef("Unavailable"))
	}
	if strings.Contains(p.Path, ":file") {
		resp.set("404", responseRef("NotFound"))
	}
	o.set("responses", resp)
	return o
}

// etagHeader is the ETag an answer of one record carries.
func etagHeader() *obj {
	return newObj("description", `The record's version as a strong entity tag, "3"; for an answer with related records (embedded or expanded) or sparse fields, the version and a digest of the answer, "3-9c1185a5c5e9fc54".`, "schema", newObj("type", "string"))
}

// notModified is the 304 of a read whose If-None-Match lists the ETag.
func notModified() *obj {
	return newObj("description", "Not modified: the answer's ETag is one If-None-Match lists.",
		"headers", newObj("ETag", newObj("schema", newObj("type", "string")),
			"X-Request-Id", headerRef("X-Request-Id")))
}

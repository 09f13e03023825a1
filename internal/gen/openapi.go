package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"records/internal/spec"
	"records/templates"
)

// obj is a JSON object that keeps its members in the order they were set,
// so the document reads in contract order and renders the same every time.
type obj struct {
	keys []string
	vals map[string]any
}

func newObj(kv ...any) *obj {
	o := &obj{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *obj) set(k string, v any) *obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

func (o *obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// copy returns a copy of o's members, to which more can be set.
func (o *obj) copy() *obj {
	out := newObj()
	for _, k := range o.keys {
		out.set(k, o.vals[k])
	}
	return out
}

func ref(name string) *obj { return newObj("$ref", "#/components/schemas/"+name) }

// ProblemCodes lists the problem codes the generated document describes.
func ProblemCodes() []string {
	out := make([]string, len(spec.Codes))
	for i, p := range spec.Codes {
		out[i] = string(p.Code)
	}
	return out
}

// errorResponses names the component response of each error status.
var errorResponses = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 412: "PreconditionFailed", 422: "KeyReused",
	413: "PayloadTooLarge", 415: "UnsupportedMediaType", 429: "TooManyRequests", 500: "InternalError", 503: "Unavailable",
}

// idPattern is what an id may hold: no "/" and no control characters.
const idPattern = "^[^/\\x00-\\x1f\\x7f]+$"

// intro is the document's description, which the docs page shows first:
// what the API serves, how to authenticate, and the query language of lists.
var intro = func() string {
	b, err := templates.FS.ReadFile("docs/intro.md")
	if err != nil {
		panic("the generator's embedded intro is missing: " + err.Error())
	}
	return strings.TrimSpace(string(b))
}()

// renderOpenAPI builds the OpenAPI 3.1 document of the API.
func renderOpenAPI(m *apiModel) ([]byte, error) {
	doc := newObj(
		"openapi", "3.1.0",
		"info", newObj(
			"title", "Records API",
			"version", "1.0.0",
			"description", intro,
		),
		"servers", []any{newObj("url", "/", "description", "The server this document is served by.")},
		"security", []any{newObj("bearer", []any{}), newObj("token", []any{})},
	)
	paths := newObj()
	// Paths in a stable order: the table's routes as listed, then the
	// generic ones, then the public routes.
	byPath := map[string]*obj{}
	pathItem := func(p string) *obj {
		if it, ok := byPath[p]; ok {
			return it
		}
		it := newObj()
		byPath[p] = it
		paths.set(p, it)
		return it
	}
	seen := map[string]int{}
	for _, rt := range m.Routes {
		path := openAPIPath(rt.Path)
		op := operation(rt, seen)
		pathItem(path).set(strings.ToLower(rt.Method), op)
	}
	addEventPaths(m, pathItem)
	for _, pr := range spec.PublicRoutes {
		pathItem(openAPIPath(pr.Path)).set("get", publicOperation(pr))
	}
	doc.set("paths", paths)
	doc.set("components", components(m))
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// openAPIPath writes a gin pattern as an OpenAPI path: :id → {id}.
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if strings.HasPrefix(part, ":") {
			parts[i] = "{" + part[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// operation is the OpenAPI operation of one route.
func operation(rt *routeView, seen map[string]int) *obj {
	op := rt.Op
	// updateReturn, genericListCustomers; an operation's other routes
	// are numbered: updateReturn_2.
	id := lowerFirst(strings.TrimPrefix(op.Var, "op"))
	seen[id]++
	if n := seen[id]; n > 1 {
		id = fmt.Sprintf("%s_%d", id, n)
	}
	o := newObj(
		"operationId", id,
		"summary", op.Name,
		"description", operationDescription(rt),
		"tags", []any{op.Resource.Type},
	)
	if rt.Deprecated {
		o.set("deprecated", true)
	}
	var params []any
	if strings.Contains(rt.Path, ":id") {
		params = append(params, newObj("name", "id", "in", "path", "required", true,
			"description", "The record's id.", "schema", ref("Id")))
	}
	params = append(params, queryParameters(op)...)
	params = append(params, headerParameters(rt)...)
	if len(params) > 0 {
		o.set("parameters", params)
	}
	body := requestSchema(op)
	if isBulk(op) {
		body = newObj("oneOf", []any{body, newObj("type", "array", "items", body, "minItems", 1, "maxItems", maxBulk,
			"description", fmt.Sprintf("A bulk create: 1 to %d records, created in one transaction or none; faults name the element, e.g. [3].email.", maxBulk))})
	}
	o.set("requestBody", newObj(
		"required", false,
		"description", "May be empty, which counts as {}.",
		"content", newObj("application/json", newObj("schema", body)),
	))
	o.set("responses", responses(rt))
	return o
}

func operationDescription(rt *routeView) string {
	op := rt.Op
	var b strings.Builder
	switch op.Kind {
	case "list":
		b.WriteString("A page of records, from the body or the query string: `filter` (exact values or operators, and/or/not), " +
			"`order_by` (keys separated by commas, `-` for descending), `limit`, a `cursor` from `paging.next_cursor` (or an `offset`), " +
			"`count`, `fields` and `expand`. With `Accept: application/x-ndjson` or `text/csv`, streams every matching record instead.")
		if strings.Contains(rt.Path, ":id") {
			b.WriteString(" Narrowed to the record of the path's id: an empty list when there is none.")
		}
	case "get":
		b.WriteString("One record by id; `fields` and `expand` shape it.")
	case "create":
		b.WriteString("Creates a record (201); without an id the server makes a UUIDv7.")
	case "patch":
		b.WriteString("Merges the members given into the record: null clears, absent members stay.")
	case "upsert":
		b.WriteString("Updates the record with the id (200, merging), or creates it (201).")
		if op.OptionalID {
			b.WriteString(" Without an id, creates one with a new id.")
		}
	case "get_or_create":
		b.WriteString("With an id, answers the record (the body may hold nothing else); without one, creates it from the body (201).")
	case "action":
		b.WriteString("Sets fixed members of the record.")
	case "delete":
		b.WriteString("Deletes the record and its children.")
		if op.By != "" {
			fmt.Fprintf(&b, " Given `%s` instead, deletes every %s of it.", op.By, strings.ReplaceAll(op.Resource.Object, "_", " "))
		}
	}
	if rt.Deprecated {
		fmt.Fprintf(&b, " Deprecated: use `%s`; answers carry Deprecation and Link headers.", rt.Successor)
	}
	if rt.NoID {
		b.WriteString(" This is the contract route with its id left out.")
	}
	return b.String()
}

// queryParameters are the read parameters a query string may carry.
func queryParameters(op *opView) []any {
	var out []any
	switch op.Kind {
	case "list":
		out = append(out,
			newObj("name", "limit", "in", "query", "schema", newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit, "default", spec.DefaultLimit)),
			newObj("name", "offset", "in", "query", "schema", newObj("type", "integer", "minimum", 0, "default", 0),
				"description", "Records to skip; a cursor pages faster and cannot be combined with an offset."),
			newObj("name", "order_direction", "in", "query", "schema", ref("Direction")),
			newObj("name", "order_by", "in", "query", "schema", ref(op.Resource.Type+"OrderBy")),
			newObj("name", "filter", "in", "query", "style", "deepObject", "explode", true,
				"description", "filter[member]=value matches exactly; filter[member][operator]=value applies an operator "+
					"(eq, ne, gt, gte, lt, lte, in, nin, contains, prefix, is_null; in and nin take values separated by commas). "+
					"Operators AND together; and, or and not nest only in a JSON body.",
				"schema", ref(op.Resource.Type+"FilterQuery")),
			newObj("name", "cursor", "in", "query", "schema", ref("Cursor")),
			newObj("name", "count", "in", "query", "schema", ref("Count")),
			newObj("name", "fields", "in", "query", "schema", newObj("type", "string"),
				"description", "Members to answer, separated by commas; the id (and version) always come."),
		)
		if len(op.Resource.Expands) > 0 {
			out = append(out, newObj("name", "expand", "in", "query", "schema", newObj("type", "string"),
				"description", "Related records to answer under the member expand, separated by commas: "+expandNames(op.Resource)+"."))
		}
		for _, f := range op.Filters {
			out = append(out, newObj("name", f, "in", "query", "description", "An exact filter.",
				"schema", queryScalar(op.Resource.field(f))))
		}
	case "get", "get_or_create":
		for _, id := range op.IDMembers {
			out = append(out, newObj("name", id, "in", "query", "description", "The record's id, for clients that cannot send a body with GET.",
				"schema", ref("Id")))
		}
		out = append(out, newObj("name", "fields", "in", "query", "schema", newObj("type", "string"),
			"description", "Members to answer, separated by commas; the id (and version) always come."))
		if len(op.Resource.Expands) > 0 {
			out = append(out, newObj("name", "expand", "in", "query", "schema", newObj("type", "string"),
				"description", "Related records to answer under the member expand, separated by commas: "+expandNames(op.Resource)+"."))
		}
	}
	return out
}

// maxBulk is the most records one bulk create takes.
const maxBulk = 1000

// isBulk tells whether a route's operation takes a JSON array: the generic
// create of a resource.
func isBulk(op *opView) bool { return op.Kind == "create" && op.Generic }

// writeMethods are the methods whose requests take an Idempotency-Key.
var writeMethods = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// headerParameters are the conditional and idempotency headers a route takes.
func headerParameters(rt *routeView) []any {
	op := rt.Op
	var out []any
	switch op.Kind {
	case "patch", "upsert", "delete":
		out = append(out, newObj("name", "If-Match", "in", "header", "schema", newObj("type", "string"),
			"description", "Write only if the record's ETag is listed (* : if it exists); otherwise 412, nothing written."))
	case "get", "get_or_create":
		if op.ETag {
			out = append(out, newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string"),
				"description", "304 without a body when the record's ETag is listed."))
		}
	}
	if writeMethods[rt.Method] {
		out = append(out, newObj("name", "Idempotency-Key", "in", "header", "schema", newObj("type", "string", "minLength", 1, "maxLength", 255),
			"description", "1–255 printable ASCII characters. The first request with a key runs and its answer is kept for 24 hours: "+
				"a retry with the same key and request answers it again (Idempotent-Replayed: true) and writes nothing; "+
				"the key with another request is 422; while the first still runs, 409."))
	}
	return out
}

// expandNames lists what a resource can expand, for descriptions.
func expandNames(r *resourceView) string {
	var names []string
	for _, e := range r.Expands {
		names = append(names, "`"+e.Name+"`")
	}
	return strings.Join(names, ", ")
}

// namesSchema is fields or expand in a body: an array of names, or one
// string of names separated by commas.
func namesSchema(names []any, desc string) *obj {
	return newObj("description", desc, "oneOf", []any{
		newObj("type", "array", "items", newObj("type", "string", "enum", names)),
		newObj("type", "string"),
	})
}

// maxChildren is the most children an expansion answers per record.
const maxChildren = 1000

// operatorsSchema is the object of operators a member's filter may hold:
// those that fit its type. In a query string (text) every value is a string.
func operatorsSchema(f *fieldView, text bool) *obj {
	value, list := inputSchema(f), newObj("type", "array", "items", inputSchema(f))
	if f.IsID {
		value, list = ref("InputId"), newObj("type", "array", "items", ref("InputId"))
	}
	boolean := newObj("oneOf", []any{newObj("type", "boolean"), newObj("type", "string", "enum", []any{"true", "false"})})
	if text {
		value, list, boolean = newObj("type", "string"), newObj("type", "string", "description", "values separated by commas"), newObj("type", "string", "enum", []any{"true", "false"})
	}
	ops := newObj("eq", value, "ne", value)
	if spec.Type(f.Kind).Ordered() {
		ops.set("gt", value)
		ops.set("gte", value)
		ops.set("lt", value)
		ops.set("lte", value)
	}
	ops.set("in", list)
	ops.set("nin", list)
	if f.Kind == "string" {
		ops.set("contains", newObj("type", "string", "description", "Matches text holding this, ignoring the case of A–Z."))
		ops.set("prefix", newObj("type", "string", "description", "Matches text starting with this."))
	}
	ops.set("is_null", boolean)
	return newObj("type", "object", "properties", ops, "additionalProperties", false, "minProperties", 1)
}

// queryScalar is the schema of a member given in a query string.
func queryScalar(f *fieldView) *obj {
	switch f.Kind {
	case "integer":
		return newObj("type", "integer")
	case "number":
		return newObj("type", "number")
	case "boolean":
		return newObj("type", "boolean")
	case "date":
		return newObj("type", "string", "format", "date")
	case "datetime":
		return newObj("type", "string", "format", "date-time")
	}
	return newObj("type", "string")
}

func directionSchema() *obj {
	return newObj("type", "string", "pattern", "^([aA][sS][cC]|[dD][eE][sS][cC])$", "default", "asc",
		"description", "asc or desc, in any case.")
}

func orderBySchema(r *resourceView) *obj {
	var names []string
	for _, f := range r.Filterable() {
		names = append(names, regexp.QuoteMeta(f.Member))
	}
	key := `\s*-?(` + strings.Join(names, "|") + `)\s*`
	var sortable []string
	for _, f := range r.Filterable() {
		if f.Sortable || f.IsID {
			sortable = append(sortable, "`"+f.Member+"`")
		}
	}
	return newObj("type", "string", "pattern", "^"+key+"(,"+key+")*$", "default", "id",
		"description", "One member, or several separated by commas, each with - for descending (else order_direction); "+
			"the id breaks ties. Orders by one of "+strings.Join(sortable, ", ")+" are served by an index.")
}

// requestSchema is the body an operation takes. Record members come from
// the resource's <Type>Members schema; the operation adds its id members,
// aliases and ignored members, and nothing else passes
// (unevaluatedProperties: false).
func requestSchema(op *opView) *obj {
	r := op.Resource
	props := newObj()
	switch op.Kind {
	case "list":
		props.set("limit", ref("Limit"))
		props.set("offset", ref("Offset"))
		props.set("order_direction", ref("Direction"))
		props.set("order_by", ref(r.Type+"OrderBy"))
		props.set("filter", ref(r.Type+"Filter"))
		props.set("cursor", ref("Cursor"))
		props.set("count", ref("Count"))
		props.set("fields", ref(r.Type+"Fields"))
		if len(r.Expands) > 0 {
			props.set("expand", ref(r.Type+"Expand"))
		}
		for _, f := range op.Filters {
			props.set(f, inputSchema(r.field(f)))
		}
		return newObj("type", "object", "properties", props, "additionalProperties", false)
	case "get", "get_or_create":
		props.set("fields", ref(r.Type+"Fields"))
		if len(r.Expands) > 0 {
			props.set("expand", ref(r.Type+"Expand"))
		}
	case "delete":
		if op.By != "" {
			props.set(op.By, newObj("description", "Deletes every record of this parent.", "allOf", []any{ref("InputId")}))
		}
	}
	takesRecord := map[string]bool{"create": true, "patch": true, "upsert": true, "get_or_create": true}[op.Kind]
	if takesRecord {
		for _, a := range op.Aliases {
			props.set(a.Key, memberInput(r.field(a.Value)).set("description", "Another name of "+a.Value+"."))
		}
	}
	for _, name := range op.Ignore {
		props.set(name, newObj("description", "Accepted and ignored."))
	}
	closed := func(p *obj) *obj {
		if !takesRecord {
			return newObj("type", "object", "properties", p, "additionalProperties", false)
		}
		return newObj("type", "object", "allOf", []any{ref(r.Type + "Members")}, "properties", p, "unevaluatedProperties", false)
	}
	flat := props.copy()
	for _, id := range op.IDMembers {
		flat.set(id, ref("InputId"))
	}
	if op.Wrapper == "" && takesRecord && len(flat.keys) == 1 && flat.keys[0] == "id" {
		// The resource's own body: the named schema, so that clients
		// generated from the document share one type for it.
		return ref(r.Type + "Write")
	}
	if op.Wrapper == "" {
		return closed(flat)
	}
	inner := props.copy()
	if slices.Contains(op.IDMembers, "id") {
		inner.set("id", ref("InputId"))
	}
	wrapped := newObj()
	for _, id := range op.IDMembers {
		if id != "id" {
			wrapped.set(id, ref("InputId"))
		}
	}
	wrapped.set(op.Wrapper, closed(inner))
	return newObj("oneOf", []any{
		closed(flat),
		newObj("type", "object", "properties", wrapped, "required", []any{op.Wrapper}, "additionalProperties", false),
	})
}

// numberOrString is a number a client may also send as a numeric string.
func numberOrString(typ string, min, max int) *obj {
	n := newObj("type", typ)
	if min >= 0 {
		n.set("minimum", min)
	}
	if max >= 0 {
		n.set("maximum", max)
	}
	pattern := "^\\s*-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?\\s*$"
	return newObj("oneOf", []any{n, newObj("type", "string", "pattern", pattern)})
}

// inputSchema is what a client may send for a member: its type, null, and
// the other JSON type the reference's samples use where one exists.
func inputSchema(f *fieldView) *obj {
	null := newObj("type", "null")
	numeric := newObj("type", "string", "pattern", "^\\s*-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?\\s*$")
	switch f.Kind {
	case "string":
		return newObj("oneOf", []any{newObj("type", "string"), newObj("type", "number", "description", "taken as its text"), null})
	case "integer":
		return newObj("oneOf", []any{newObj("type", "integer"), numeric, null})
	case "number":
		return newObj("oneOf", []any{newObj("type", "number"), numeric, null})
	case "boolean":
		return newObj("oneOf", []any{newObj("type", "boolean"), newObj("type", "string", "enum", []any{"true", "false"}), null})
	case "date":
		return newObj("type", []any{"string", "null"}, "format", "date")
	case "datetime":
		return newObj("type", []any{"string", "null"}, "format", "date-time")
	case "object":
		return newObj("type", []any{"object", "null"})
	case "string_map":
		return newObj("type", []any{"object", "null"}, "additionalProperties", newObj("type", "string"))
	}
	panic("no input schema for kind " + f.Kind)
}

// memberInput is a member's input schema with its description.
func memberInput(f *fieldView) *obj {
	s := inputSchema(f)
	if d := memberDescription(f); d != "" {
		s.set("description", d)
	}
	return s
}

// embedInput is the input schema of embedded records.
func embedInput(e *embedView) *obj {
	return newObj("type", []any{"array", "null"}, "items", ref(e.Child.Type+"Write"),
		"description", "Created with the record, in one transaction; only when creating.")
}

// outputSchema is how a member is answered.
func outputSchema(f *fieldView) *obj {
	var s *obj
	switch {
	case f.IsID:
		s = ref("Id")
	case f.ReadOnly && f.Kind == "integer":
		s = newObj("type", "integer", "readOnly", true)
	case f.Kind == "string_map":
		s = newObj("type", []any{"object", "null"}, "additionalProperties", newObj("type", "string"))
	case f.Kind == "object":
		s = newObj("type", []any{"object", "null"})
	default:
		typ := map[string]string{"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "date": "string", "datetime": "string"}[f.Kind]
		s = newObj("type", []any{typ, "null"})
		if f.Kind == "date" {
			s.set("format", "date")
		}
		if f.Kind == "datetime" {
			s.set("format", "date-time")
		}
	}
	if d := memberDescription(f); d != "" && !f.IsID {
		s.set("description", d)
	}
	return s
}

func memberDescription(f *fieldView) string {
	var parts []string
	if f.Parent != nil {
		parts = append(parts, fmt.Sprintf("The id of the %s this belongs to.", strings.ReplaceAll(f.Parent.Object, "_", " ")))
	}
	switch f.Stamp {
	case "create":
		parts = append(parts, "Filled by the server on create when absent.")
	case "update":
		parts = append(parts, "Filled by the server on every write that leaves it absent.")
	}
	if f.ReadOnly {
		parts = append(parts, "Read-only.")
	}
	return strings.Join(parts, " ")
}

// responses are an operation's answers: its success (from its envelope)
// and every problem it can answer.
func responses(rt *routeView) *obj {
	op := rt.Op
	out := newObj()
	success := func(desc string) *obj {
		schema := envelopeSchema(op.shape, op)
		if isBulk(op) {
			schema = newObj("oneOf", []any{schema, newObj("type", "object", "properties",
				newObj(op.Resource.Plural, newObj("type", "array", "items", ref(op.Resource.Type))),
				"required", []any{op.Resource.Plural}, "additionalProperties", false,
				"description", "A bulk create's records, in the order given.")})
		}
		content := newObj("application/json", newObj("schema", schema))
		if op.Kind == "list" {
			content.set("application/x-ndjson", newObj("schema", newObj("type", "string",
				"description", "With Accept: application/x-ndjson: every matching record, one JSON object a line. "+
					"A failure midway ends the stream with a line {\"error\": problem} and cuts it off unterminated.")))
			content.set("text/csv", newObj("schema", newObj("type", "string",
				"description", "With Accept: text/csv: every matching record, after a header row of member names (RFC 4180). "+
					"A failure midway cuts the stream off unterminated.")))
		}
		headers := successHeaders(rt)
		if op.ETag {
			headers.set("ETag", newObj("description", `The record's version as a strong entity tag, e.g. "3".`, "schema", newObj("type", "string")))
		}
		if writeMethods[rt.Method] {
			headers.set("Idempotent-Replayed", newObj("description", "true when the answer is the stored one of an earlier request with the same Idempotency-Key.",
				"schema", newObj("type", "string", "enum", []any{"true"})))
		}
		return newObj("description", desc, "headers", headers, "content", content)
	}
	switch op.Kind {
	case "create":
		out.set("201", success("Success."))
	case "upsert", "get_or_create":
		out.set("200", success("Success."))
		out.set("201", success("Created."))
	default:
		out.set("200", success("Success."))
	}
	if (op.Kind == "get" || op.Kind == "get_or_create") && op.ETag {
		out.set("304", newObj("description", "Not modified: the record's ETag is one If-None-Match lists.",
			"headers", newObj("ETag", newObj("schema", newObj("type", "string")),
				"X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))))
	}
	statuses := []int{400, 401}
	if op.Kind != "list" && op.Kind != "get" {
		statuses = append(statuses, 403)
	}
	statuses = append(statuses, 404)
	switch op.Kind {
	case "create", "upsert", "get_or_create", "patch":
		statuses = append(statuses, 409)
	}
	if writeMethods[rt.Method] && op.Kind != "create" && op.Kind != "upsert" && op.Kind != "get_or_create" && op.Kind != "patch" {
		statuses = append(statuses, 409)
	}
	switch op.Kind {
	case "patch", "upsert", "delete":
		statuses = append(statuses, 412)
	}
	statuses = append(statuses, 413, 415)
	if writeMethods[rt.Method] {
		statuses = append(statuses, 422)
	}
	statuses = append(statuses, 429, 500, 503)
	for _, s := range statuses {
		out.set(fmt.Sprint(s), newObj("$ref", "#/components/responses/"+errorResponses[s]))
	}
	return out
}

func successHeaders(rt *routeView) *obj {
	h := newObj("X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))
	if rt.Deprecated {
		h.set("Deprecation", newObj("description", spec.DeprecationDate+": deprecated since "+spec.DeprecationDay+" (RFC 9745).", "schema", newObj("type", "string")))
		h.set("Link", newObj("description", fmt.Sprintf(`<%s>; rel="successor-version"`, rt.Successor), "schema", newObj("type", "string")))
	}
	return h
}

// envelopeSchema describes the JSON an envelope writes.
func envelopeSchema(n *envNode, op *opView) *obj {
	switch {
	case n.IsObject:
		props := newObj()
		var req []any
		for i, k := range n.Keys {
			props.set(k, envelopeSchema(n.Values[i], op))
			req = append(req, k)
		}
		return newObj("type", "object", "properties", props, "required", req, "additionalProperties", false)
	case n.IsArray:
		if len(n.Items) == 1 {
			return newObj("type", "array", "items", envelopeSchema(n.Items[0], op), "minItems", 1, "maxItems", 1)
		}
		var items []any
		for _, it := range n.Items {
			items = append(items, envelopeSchema(it, op))
		}
		return newObj("type", "array", "prefixItems", items, "items", false)
	case n.Placeholder != "":
		base, member, _ := strings.Cut(n.Placeholder, ".")
		switch base {
		case "$record":
			if member != "" {
				return outputSchema(op.Resource.field(member))
			}
			return recordSchema(op)
		case "$records":
			return newObj("type", "array", "items", recordSchema(op))
		case "$paging":
			return ref("Paging")
		case "$id":
			return ref("Id")
		case "$created":
			return newObj("type", "boolean", "description", "Whether the request created the record.")
		case "$secret":
			return newObj("type", []any{"string", "null"}, "description", "The secret made when the record was created; answered only then, null afterwards.")
		}
	default:
		var v any
		_ = json.Unmarshal([]byte(n.Literal), &v)
		return newObj("const", v)
	}
	panic("unknown envelope node")
}

// recordSchema is a record as an operation answers it: every member after
// a write; after a read, every member or, when the request named fields,
// those and the id, with related records under expand when asked.
func recordSchema(op *opView) *obj {
	switch op.Kind {
	case "list", "get", "get_or_create":
		return newObj("anyOf", []any{ref(op.Resource.Type), ref(op.Resource.Type + "Sparse")})
	}
	return ref(op.Resource.Type)
}

// components holds every resource's schemas and the shared pieces.
func components(m *apiModel) *obj {
	schemas := newObj()
	schemas.set("Id", newObj("type", "string", "minLength", 1, "maxLength", 255, "pattern", idPattern,
		"description", "A record's id: unique across teams; a UUIDv7 when the server makes it."))
	schemas.set("InputId", newObj("oneOf", []any{ref("Id"), newObj("type", "number", "description", "taken as its text")}))
	schemas.set("Limit", numberOrString("integer", 1, spec.MaxLimit).set("description", fmt.Sprintf("Records per page: 1 to %d, default %d.", spec.MaxLimit, spec.DefaultLimit)))
	schemas.set("Offset", numberOrString("integer", 0, -1).set("description", "Records to skip, default 0."))
	schemas.set("Direction", directionSchema())
	schemas.set("Paging", newObj("type", "object",
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
	schemas.set("Cursor", newObj("type", "string", "minLength", 1,
		"description", "An opaque cursor from paging.next_cursor; valid only with the filter and order it was made with, and never with an offset."))
	addEventSchemas(m, schemas)
	schemas.set("Count", newObj("type", "string", "enum", []any{"exact", "estimated"},
		"description", "Adds paging.total: exact counts; estimated uses the planner's statistics above 10,000 rows (PostgreSQL)."))
	var codes []any
	for _, p := range spec.Codes {
		codes = append(codes, string(p.Code))
	}
	schemas.set("Problem", newObj(
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
				"items", newObj("type", "object",
					"properties", newObj("member", newObj("type", "string"), "problem", newObj("type", "string")),
					"required", []any{"member", "problem"}, "additionalProperties", false)),
		),
		"required", []any{"type", "title", "status", "detail", "code", "success", "request_id", "errors"},
		"additionalProperties", false,
	))
	resources := append([]*resourceView(nil), m.Resources...)
	sort.Slice(resources, func(i, j int) bool { return resources[i].Type < resources[j].Type })
	for _, r := range resources {
		props := newObj()
		var req []any
		for _, f := range r.Fields {
			props.set(f.Member, outputSchema(f))
			req = append(req, f.Member)
		}
		for _, e := range r.Embeds {
			props.set(e.Member, newObj("type", "array", "items", ref(e.Child.Type), "description", "Ordered by id."))
			req = append(req, e.Member)
		}
		if len(r.Expands) > 0 {
			expanded := newObj()
			var names []any
			for _, e := range r.Expands {
				names = append(names, e.Name)
				if e.Children {
					expanded.set(e.Name, newObj("type", "array", "items", ref(e.Other.Type),
						"description", fmt.Sprintf("Ordered by id; at most %d.", maxChildren)))
				} else {
					expanded.set(e.Name, newObj("anyOf", []any{ref(e.Other.Type), newObj("type", "null")}))
				}
			}
			props.set("expand", newObj("type", "object", "properties", expanded, "additionalProperties", false,
				"description", "Related records, present only when the request named them in expand."))
			schemas.set(r.Type+"Expand", namesSchema(names, "Related records to answer under the member expand."))
		}
		schemas.set(r.Type, newObj("type", "object", "properties", props, "required", req, "additionalProperties", false))
		schemas.set(r.Type+"Sparse", newObj("type", "object", "properties", props, "required", []any{"id"}, "additionalProperties", false,
			"description", "The record with only the members a request named in fields (and the id)."))
		var memberNames []any
		for _, m := range req {
			memberNames = append(memberNames, m)
		}
		schemas.set(r.Type+"Fields", namesSchema(memberNames, "Members to answer; the id (and version) always come."))

		members := newObj()
		for _, f := range r.Writable() {
			members.set(f.Member, memberInput(f))
		}
		for _, e := range r.Embeds {
			members.set(e.Member, embedInput(e))
		}
		schemas.set(r.Type+"Members", newObj("type", "object", "properties", members,
			"description", "The members a client may write; operations add their id members."))
		schemas.set(r.Type+"Write", newObj("type", "object", "allOf", []any{ref(r.Type + "Members")},
			"properties", newObj("id", ref("InputId")), "unevaluatedProperties", false))

		filter := newObj()
		query := newObj()
		for _, f := range r.Filterable() {
			exact := inputSchema(f)
			if f.IsID {
				exact = ref("InputId")
			}
			filter.set(f.Member, newObj("oneOf", []any{exact, operatorsSchema(f, false)}))
			query.set(f.Member, newObj("oneOf", []any{newObj("type", "string"), operatorsSchema(f, true)}))
		}
		filter.set("and", newObj("type", "array", "items", ref(r.Type+"Filter"), "description", "Every filter holds."))
		filter.set("or", newObj("type", "array", "items", ref(r.Type+"Filter"), "description", "At least one filter holds."))
		filter.set("not", ref(r.Type+"Filter").set("description", "The filter does not hold (a null counts as not matching)."))
		schemas.set(r.Type+"OrderBy", orderBySchema(r))
		schemas.set(r.Type+"Filter", newObj("type", "object", "properties", filter, "additionalProperties", false,
			"description", "Members to exact values (null matches null) or to objects of operators, AND-ed; and, or and not nest up to 8 levels."))
		schemas.set(r.Type+"FilterQuery", newObj("type", "object", "properties", query, "additionalProperties", false,
			"description", "The query string's filters: filter[member]=value or filter[member][operator]=value."))
	}
	problem := newObj("application/problem+json", newObj("schema", ref("Problem")))
	retry := newObj("Retry-After", newObj("description", "Seconds to wait.", "schema", newObj("type", "integer")),
		"X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))
	plain := newObj("X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))
	respond := func(desc string, headers *obj) *obj {
		return newObj("description", desc, "headers", headers, "content", problem)
	}
	return newObj(
		"schemas", schemas,
		"responses", newObj(
			"BadRequest", respond("The body or a parameter is wrong; errors names the members at fault.", plain),
			"Unauthorized", respond("No token, a malformed Authorization header, or an unknown, revoked or expired token.",
				newObj("WWW-Authenticate", newObj("schema", newObj("type", "string", "const", `Bearer realm="records"`)),
					"X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))),
			"Forbidden", respond("The token may only read.", plain),
			"NotFound", respond("No such record in the caller's team.", plain),
			"Conflict", respond("A unique value (an id, a username) is taken, or a request with the same Idempotency-Key is still running.", retry),
			"PreconditionFailed", respond("If-Match named versions the record is not at, or the record does not exist; nothing was written.", plain),
			"KeyReused", respond("The Idempotency-Key was used with another request.", plain),
			"PayloadTooLarge", respond("The body is over the limit (1 MiB by default).", plain),
			"UnsupportedMediaType", respond("The body is not JSON.", plain),
			"TooManyRequests", respond("The token's rate limit is exhausted.", retry),
			"InternalError", respond("A fault of the server; the request id finds it in the log.", plain),
			"Unavailable", respond("The database is unreachable or too slow.", retry),
		),
		"headers", newObj("X-Request-Id", newObj("description", "The request's id: the client's own when sensible, else one the server made.",
			"schema", newObj("type", "string"))),
		"securitySchemes", newObj(
			"bearer", newObj("type", "http", "scheme", "bearer", "description", "Authorization: Bearer <key>"),
			"token", newObj("type", "apiKey", "in", "header", "name", "Authorization", "description", "Authorization: Token <key>"),
		),
	)
}

// publicOperation documents a route outside the generated operations that
// the server registers itself (a test compares the document with the
// server's routes).
func publicOperation(p spec.PublicRoute) *obj {
	o := newObj("operationId", p.OperationID, "summary", p.Summary, "tags", []any{"Service"}, "security", []any{})
	if strings.Contains(p.Path, ":file") {
		o.set("parameters", []any{newObj("name", "file", "in", "path", "required", true, "schema", newObj("type", "string"))})
	}
	media := newObj()
	if p.ContentType == "application/json" {
		media.set("schema", newObj("type", "object"))
	}
	resp := newObj("200", newObj("description", "OK.", "content", newObj(p.ContentType, media)))
	if p.Path == spec.PathReady {
		resp.set("503", newObj("$ref", "#/components/responses/Unavailable"))
	}
	if p.Path == spec.PathDocsFile {
		resp.set("404", newObj("$ref", "#/components/responses/NotFound"))
	}
	o.set("responses", resp)
	return o
}

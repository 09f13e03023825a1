package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"records/internal/spec"
	"records/templates"
)

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
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 408: "RequestTimeout", 409: "Conflict", 412: "PreconditionFailed", 422: "KeyReused",
	413: "PayloadTooLarge", 415: "UnsupportedMediaType", 429: "TooManyRequests", 500: "InternalError", 503: "Unavailable",
}

// idPattern is what an id may hold: no "/" and no control characters (C0,
// DEL and C1).
const idPattern = "^[^/\\x00-\\x1f\\x7f-\\x9f]+$"

// intro is the document's description, which the docs page shows first:
// what the API serves, how to authenticate, and the query language of lists.
var intro = func() string {
	b, err := templates.FS.ReadFile("docs/intro.md")
	if err != nil {
		panic("the generator's embedded intro is missing: " + err.Error())
	}
	return strings.TrimSpace(string(b))
}()

// putOperation puts an operation in the document's paths: its method and
// its route in gin's pattern (/v1/returns/:id), written as OpenAPI's.
type putOperation func(method, route string, op *obj)

// openAPIDoc is the document being built: the paths, and the schemas
// they name in passing, which become its components.
type openAPIDoc struct {
	m       *apiModel
	schemas *catalog
	// members are every member's schemas, built once each.
	members map[*fieldView]memberSchemas
}

// renderOpenAPI builds the OpenAPI 3.1 document of the API.
func renderOpenAPI(m *apiModel) ([]byte, error) {
	d := &openAPIDoc{m: m, schemas: newCatalog(), members: map[*fieldView]memberSchemas{}}
	doc := newObj(
		"openapi", "3.1.0",
		"info", newObj(
			"title", "Records API",
			"version", "1.0.0",
			"description", intro,
			// No licence is granted: the API is its owner's. An SPDX
			// expression names that with a LicenseRef.
			"license", newObj("name", "Proprietary", "identifier", "LicenseRef-Proprietary"),
		),
		"servers", []any{newObj("url", "/", "description", "The server this document is served by.")},
		"security", security,
	)
	d.sharedSchemas()
	for _, r := range m.Resources {
		d.resourceSchemas(r)
	}
	paths := d.paths()
	doc.set("paths", paths)
	components, err := d.components(paths)
	if err != nil {
		return nil, err
	}
	// Shared once the schemas are named, by the names they took.
	responses := components.vals["responses"].(*obj)
	answers := shareAnswers(paths)
	for _, name := range answers.keys {
		responses.set(name, answers.vals[name])
	}
	components.set("requestBodies", shareBodies(paths))
	pruneResponses(responses, paths, components)
	doc.set("components", components)
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

// pruneResponses drops the shared answers nothing refers to: the
// problems whose statuses every operation answers by a range (4XX).
func pruneResponses(responses *obj, users ...*obj) {
	b, err := json.Marshal(users)
	if err != nil {
		panic(err)
	}
	kept := newObj()
	for _, name := range responses.keys {
		if bytes.Contains(b, []byte(`"#/components/responses/`+name+`"`)) {
			kept.set(name, responses.vals[name])
		}
	}
	*responses = *kept
}

// paths are the document's paths, in a stable order: the table's routes
// as listed, then the generic ones, then the service's and the public
// routes.
func (d *openAPIDoc) paths() *obj {
	paths := newObj()
	byPath := map[string]*obj{}
	var put putOperation = func(method, route string, op *obj) {
		p := openAPIPath(route)
		it, ok := byPath[p]
		if !ok {
			it = newObj()
			byPath[p] = it
			paths.set(p, it)
		}
		it.set(strings.ToLower(method), op)
	}
	seen := map[string]int{}
	for _, rt := range d.m.Routes {
		put(rt.Method, rt.Path, d.operation(rt, seen))
	}
	addEventPaths(d.m, put)
	addMePath(put)
	addAggregatePaths(d.m, put)
	for _, pr := range spec.PublicRoutes {
		put("GET", pr.Path, publicOperation(pr))
	}
	for _, p := range paths.keys {
		hoistParameters(paths.vals[p].(*obj))
	}
	return paths
}

// hoistParameters moves the parameters every operation of a path takes
// (the path's id, most often) to the path, which states them once.
func hoistParameters(item *obj) {
	if len(item.keys) < 2 {
		return
	}
	key := func(p any) string {
		b, err := json.Marshal(p)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	count := map[string]int{}
	for _, m := range item.keys {
		params, _ := item.vals[m].(*obj).vals["parameters"].([]any)
		for _, p := range params {
			count[key(p)]++
		}
	}
	var common []any
	first, _ := item.vals[item.keys[0]].(*obj).vals["parameters"].([]any)
	for _, p := range first {
		if count[key(p)] == len(item.keys) {
			common = append(common, p)
		}
	}
	if len(common) == 0 {
		return
	}
	for _, m := range item.keys {
		op := item.vals[m].(*obj)
		var own []any
		for _, p := range op.vals["parameters"].([]any) {
			if count[key(p)] != len(item.keys) {
				own = append(own, p)
			}
		}
		if len(own) == 0 {
			op.keys = slices.DeleteFunc(op.keys, func(k string) bool { return k == "parameters" })
			delete(op.vals, "parameters")
		} else {
			op.set("parameters", own)
		}
	}
	item.set("parameters", common)
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
func (d *openAPIDoc) operation(rt *routeView, seen map[string]int) *obj {
	op := rt.Op
	// updateReturn, genericListCustomers; an operation's other routes
	// are numbered: updateReturn_2.
	id := lowerFirst(strings.TrimPrefix(op.Var, "op"))
	seen[id]++
	if n := seen[id]; n > 1 {
		id = fmt.Sprintf("%s_%d", id, n)
	}
	o := newObj("operationId", id, "summary", op.Name)
	if notes := routeNotes(rt); notes != "" {
		o.set("description", notes)
	}
	o.set("tags", []any{op.Resource.Type})
	if rt.Deprecated {
		o.set("deprecated", true)
	}
	var params []any
	switch {
	case strings.Contains(rt.Path, ":id") && op.Kind == spec.List:
		// A list narrowed to an id no record could have is empty.
		params = append(params, paramRef("ListId"))
	case strings.Contains(rt.Path, ":id"):
		params = append(params, paramRef("Id"))
	}
	params = append(params, d.queryParameters(op)...)
	params = append(params, headerParameters(rt)...)
	if len(params) > 0 {
		o.set("parameters", params)
	}
	// That a body may be empty is said once, in the intro; a body is
	// optional unless required says otherwise.
	o.set("requestBody", newObj(
		"content", newObj("application/json", newObj("schema", d.requestBody(rt))),
	))
	o.set("responses", d.responses(rt))
	return o
}

// operationDescription says what a route does: what every operation of
// its kind does, then what is particular to the route (routeNotes).
func operationDescription(rt *routeView) string {
	return strings.TrimSpace(kindDescription(rt.Op) + " " + routeNotes(rt))
}

// kindDescription is what every operation of op's kind does. The document
// says it once, in the intro's Operations; the clients' comments say it
// at each method.
func kindDescription(op *opView) string {
	switch op.Kind {
	case spec.List:
		return "A page of records, filtered, ordered and shaped by the parameters, from the query string or the body. " +
			"With `Accept: application/x-ndjson` or `text/csv`, streams every matching record instead."
	case spec.Get:
		return "One record by id; `fields` and `expand` shape it."
	case spec.Create:
		return "Creates a record (201); without an id the server makes a UUIDv7."
	case spec.Patch:
		return "Merges the members given into the record: null clears, absent members stay."
	case spec.Upsert:
		return "Updates the record with the id (200, merging), or creates it (201)."
	case spec.GetOrCreate:
		return "With an id, answers the record (the body may hold nothing else); without one, creates it from the body (201)."
	case spec.Action:
		return "Sets fixed members of the record."
	case spec.Delete:
		return "Moves the record and its children to the trash, as one batch: from then on they are answered as missing ones, " +
			"their ids stay taken, and a restore brings them back. With `permanent=true` (admin only), erases them for good instead."
	case spec.Restore:
		return "Takes the record out of the trash, with the records of its batch (the children its delete moved there, or the parent whose delete did), " +
			"answering it at its next version. 404 when it is not in the trash; 409 naming the member when a unique value was taken meanwhile (nothing is restored)."
	case spec.Revert:
		return "Writes a new version of the record whose members equal those it had at `version`, read from that version's event; " +
			"the event of the change is an update carrying `reverted_from`. 409 `version_unavailable` once that event is gone."
	}
	return ""
}

// routeNotes is what is particular to a route, beyond its kind: the
// document's description of it ("" when nothing is).
func routeNotes(rt *routeView) string {
	op := rt.Op
	var b strings.Builder
	switch {
	case op.Kind == spec.List && strings.Contains(rt.Path, ":id"):
		b.WriteString(" Narrowed to the record of the path's id: an empty list when there is none.")
	case op.Kind == spec.Upsert && op.OptionalID:
		b.WriteString(" Without an id, creates one with a new id.")
	case op.Kind == spec.Delete && op.By != "":
		fmt.Fprintf(&b, " Given `%s` instead, deletes every %s of it.", op.By, strings.ReplaceAll(op.Resource.Object, "_", " "))
	}
	if rt.Deprecated {
		fmt.Fprintf(&b, " Deprecated: use `%s`; answers carry Deprecation and Link headers.", rt.Successor)
	}
	if rt.NoID {
		b.WriteString(" This is the contract route with its id left out.")
	}
	return strings.TrimSpace(b.String())
}

// responses are an operation's answers: its success (from its envelope)
// and every problem it can answer.
func (d *openAPIDoc) responses(rt *routeView) *obj {
	op := rt.Op
	out := newObj()
	schema := d.answerSchema(rt)
	success := func(desc string) *obj {
		content := newObj("application/json", newObj("schema", schema))
		if op.Kind == spec.List {
			content.set("application/x-ndjson", newObj("schema", ref("NDJSONExport")))
			content.set("text/csv", newObj("schema", ref("CSVExport")))
		}
		headers := successHeaders(rt)
		if op.ETag {
			headers.set("ETag", headerRef("ETag"))
		}
		if writeMethods[rt.Method] {
			headers.set("Idempotent-Replayed", headerRef("Idempotent-Replayed"))
		}
		return newObj("description", desc, "headers", headers, "content", content)
	}
	switch op.Kind {
	case spec.Create:
		out.set("201", success("Success."))
	case spec.Upsert, spec.GetOrCreate:
		out.set("200", success("Success."))
		out.set("201", success("Created."))
	default:
		out.set("200", success("Success."))
	}
	if (op.Kind == spec.Get || op.Kind == spec.GetOrCreate) && op.ETag {
		out.set("304", responseRef("NotModified"))
	}
	// 403: a read-scoped token's write, or an operation the caller's role
	// may not run (a list or get included).
	statuses := []int{400, 401, 403, 404}
	if op.Kind == spec.GetOrCreate && rt.Method == "GET" {
		statuses = append(statuses, 405) // a HEAD that would create
	}
	statuses = append(statuses, 408)
	switch op.Kind {
	case spec.Create, spec.Upsert, spec.GetOrCreate, spec.Patch:
		statuses = append(statuses, 409)
	}
	if writeMethods[rt.Method] && op.Kind != spec.Create && op.Kind != spec.Upsert && op.Kind != spec.GetOrCreate && op.Kind != spec.Patch {
		statuses = append(statuses, 409)
	}
	switch op.Kind {
	case spec.Patch, spec.Upsert, spec.Delete, spec.Action, spec.Restore, spec.Revert:
		statuses = append(statuses, 412)
	}
	statuses = append(statuses, 413, 415)
	if writeMethods[rt.Method] {
		statuses = append(statuses, 422)
	}
	statuses = append(statuses, 429, 500, 503)
	return withErrors(out, statuses...)
}

func successHeaders(rt *routeView) *obj {
	h := newObj("X-Request-Id", headerRef("X-Request-Id"))
	if rt.Deprecated {
		h.set("Deprecation", newObj("description", spec.DeprecationDate+": deprecated since "+spec.DeprecationDay+" (RFC 9745).", "schema", newObj("type", "string")))
		h.set("Link", newObj("description", fmt.Sprintf(`<%s>; rel="successor-version"`, rt.Successor), "schema", newObj("type", "string")))
	}
	return h
}

package gen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"records/internal/query"
	"records/internal/spec"
)

// parameterComponents are the parameters routes share, each described
// once: a list's, a read's, the conditional and idempotency headers, and
// each resource's filter, order and expand. Their names end in Param:
// generators give parameters and schemas types in one namespace.
func parameterComponents(m *apiModel) *obj {
	fields := newObj("name", "fields", "in", "query", "schema", newObj("type", "string"),
		"description", "Members to answer, separated by commas; the id (and version) always come.")
	params := newObj(
		"IdParam", newObj("name", "id", "in", "path", "required", true, "description", "The record's id.", "schema", ref("Id")),
		"WebhookIdParam", newObj("name", "id", "in", "path", "required", true, "description", "The webhook's id.", "schema", ref("Id")),
		"ListIdParam", newObj("name", "id", "in", "path", "required", true, "schema", newObj("type", "string"),
			"description", "Narrows the list to the record of this id: an empty list if there is none."),
		"LimitParam", newObj("name", "limit", "in", "query", "schema", newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit, "default", spec.DefaultLimit)),
		"OffsetParam", newObj("name", "offset", "in", "query", "schema", newObj("type", "integer", "minimum", 0, "maximum", spec.MaxOffset, "default", 0),
			"description", "Records to skip; a cursor pages faster and cannot be combined with an offset."),
		"OrderDirectionParam", newObj("name", "order_direction", "in", "query", "schema", ref("Direction")),
		"CursorParam", newObj("name", "cursor", "in", "query", "schema", ref("Cursor")),
		"CountParam", newObj("name", "count", "in", "query", "schema", ref("Count")),
		"FieldsParam", fields,
		"TrashedParam", newObj("name", "trashed", "in", "query", "schema", newObj("type", "string", "enum", []any{"only", "include"}),
			"description", "only: the records in the trash; include: those and the others. Records in the trash answer deleted_at and deleted_by. "+
				"A role needs restore on the resource."),
		"PermanentParam", newObj("name", "permanent", "in", "query", "schema", newObj("type", "string", "enum", []any{"true", "false"}),
			"description", "true erases the record and its children for good, from the trash or not (admin only); each erasure is a purged event."),
		"PageLimitParam", queryParam("limit", fmt.Sprintf("Events per page: 1 to %d, default %d.", spec.MaxLimit, spec.DefaultLimit), ref("Limit")),
		"PageCursorParam", queryParam("cursor", "paging.next_cursor of the page before, or an event stream's id: line.", ref("Cursor")),
		"IdQueryParam", idQueryParameter("id"),
		"IfMatchParam", newObj("name", "If-Match", "in", "header", "schema", newObj("type", "string"),
			"description", "Write only if the record's ETag is listed (* : if it exists); otherwise 412, nothing written."),
		"IfNoneMatchParam", newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string"),
			"description", "304 without a body when the answer's ETag is listed."),
		"IfNoneMatchCreateParam", newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string", "const", "*"),
			"description", "* : create only; when a record has the id, 412 and nothing written."),
		"IfNoneMatchWriteParam", newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string"),
			"description", "* or entity tags: written only if the record is at none of the versions listed (with *, never): 412 and nothing written otherwise. Not with If-Match."),
		"IdempotencyKeyParam", newObj("name", "Idempotency-Key", "in", "header", "schema", newObj("type", "string", "minLength", 1, "maxLength", 255),
			"description", "1–255 printable ASCII characters. The first request with a key runs and its answer is kept for 24 hours: "+
				"a retry with the same key and request answers it again (Idempotent-Replayed: true) and writes nothing; "+
				"the key with another request is 422; while the first still runs, 409."),
	)
	aggregateParameters(params)
	for _, r := range m.Resources {
		params.set(r.Type+"OrderByParam", newObj("name", "order_by", "in", "query", "schema", ref(r.Type+"OrderBy")))
		params.set(r.Type+"FilterParam", newObj("name", "filter", "in", "query", "style", "deepObject", "explode", true,
			"description", "See Lists.",
			"schema", ref(r.Type+"FilterQuery")))
		if r.Searchable() {
			params.set(r.Type+"SearchParam", qParameter(r))
		}
		if len(r.Expands) > 0 {
			params.set(r.Type+"ExpandParam", newObj("name", "expand", "in", "query", "schema", newObj("type", "string"),
				"description", "Related records to answer under the member expand, separated by commas: "+expandNames(r)+"."))
		}
	}
	return params
}

// idQueryParameter is the id member of a read whose route has no id,
// given in the query string.
func idQueryParameter(name string) *obj {
	return newObj("name", name, "in", "query", "description", "The record's id, for clients that cannot send a body with GET.",
		"schema", ref("Id"))
}

// queryParameters are the read parameters a query string may carry.
func (d *openAPIDoc) queryParameters(op *opView) []any {
	r := op.Resource
	var out []any
	switch op.Kind {
	case spec.List:
		out = append(out, paramRef("Limit"), paramRef("Offset"), paramRef("OrderDirection"), paramRef(r.Type+"OrderBy"),
			paramRef(r.Type+"Filter"), paramRef("Cursor"), paramRef("Count"), paramRef("Fields"), paramRef("Trashed"))
		if len(r.Expands) > 0 {
			out = append(out, paramRef(r.Type+"Expand"))
		}
		if r.Searchable() {
			out = append(out, paramRef(r.Type+"Search"))
		}
		for _, f := range op.Filters {
			out = append(out, newObj("name", f, "in", "query", "description", "An exact filter.",
				"schema", d.member(r.field(f)).queryValue))
		}
	case spec.Get, spec.GetOrCreate:
		for _, id := range op.IDMembers {
			if id == "id" {
				out = append(out, paramRef("IdQuery"))
				continue
			}
			out = append(out, idQueryParameter(id))
		}
		out = append(out, paramRef("Fields"), paramRef("Trashed"))
		if len(r.Expands) > 0 {
			out = append(out, paramRef(r.Type+"Expand"))
		}
	case spec.Delete:
		if op.By == "" {
			out = append(out, paramRef("Permanent"))
		}
	}
	return out
}

// isBulk tells whether a route's operation takes a JSON array: the generic
// create of a resource.
func isBulk(rt *routeView) bool {
	op := rt.Op
	return op.Kind == spec.Create && op.Generic ||
		op.Kind == spec.Upsert && spec.UpdateTakesBulk(op.OptionalID, rt.Method, rt.Path, op.Resource.Plural)
}

// writeMethods are the methods whose requests take an Idempotency-Key.
var writeMethods = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// headerParameters are the conditional and idempotency headers a route takes.
func headerParameters(rt *routeView) []any {
	op := rt.Op
	var out []any
	switch op.Kind {
	case spec.Upsert:
		out = append(out, paramRef("IfMatch"), paramRef("IfNoneMatchCreate"))
	case spec.Patch, spec.Delete, spec.Action, spec.Restore, spec.Revert:
		out = append(out, paramRef("IfMatch"), paramRef("IfNoneMatchWrite"))
	case spec.Get, spec.GetOrCreate:
		if op.ETag {
			out = append(out, paramRef("IfNoneMatch"))
		}
	}
	if writeMethods[rt.Method] {
		out = append(out, paramRef("IdempotencyKey"))
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

func directionSchema() *obj {
	return newObj("type", "string", "pattern", "^([aA][sS][cC]|[dD][eE][sS][cC])$", "default", "asc",
		"description", "asc or desc, in any case.")
}

func orderBySchema(r *resourceView) *obj {
	var names []string
	for _, f := range r.Filterable() {
		names = append(names, regexp.QuoteMeta(f.Member))
	}
	if r.Searchable() {
		names = append(names, query.RankColumn.Member)
	}
	key := `\s*-?(` + strings.Join(names, "|") + `)\s*`
	var sortable []string
	for _, f := range r.Filterable() {
		if f.Sortable || f.IsID {
			sortable = append(sortable, "`"+f.Member+"`")
		}
	}
	return newObj("type", "string", "pattern", "^"+key+"(,"+key+"){0,"+strconv.Itoa(spec.MaxOrderKeys-1)+"}$", "default", "id",
		"description", "Up to "+strconv.Itoa(spec.MaxOrderKeys)+" members (see Lists); indexed: "+strings.Join(sortable, ", ")+".")
}

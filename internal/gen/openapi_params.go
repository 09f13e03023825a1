package gen

import (
	"regexp"
	"strconv"
	"strings"

	"records/internal/spec"
)

// queryParameters are the read parameters a query string may carry.
func queryParameters(op *opView) []any {
	var out []any
	switch op.Kind {
	case "list":
		out = append(out,
			newObj("name", "limit", "in", "query", "schema", newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit, "default", spec.DefaultLimit)),
			newObj("name", "offset", "in", "query", "schema", newObj("type", "integer", "minimum", 0, "maximum", spec.MaxOffset, "default", 0),
				"description", "Records to skip; a cursor pages faster and cannot be combined with an offset."),
			newObj("name", "order_direction", "in", "query", "schema", ref("Direction")),
			newObj("name", "order_by", "in", "query", "schema", ref(op.Resource.Type+"OrderBy")),
			newObj("name", "filter", "in", "query", "style", "deepObject", "explode", true,
				"description", "filter[member]=value matches exactly; filter[member][operator]=value applies an operator "+
					"(eq, ne, gt, gte, lt, lte, in, nin, contains, prefix, is_null; in and nin take values separated by commas, "+
					"or numbered: filter[member][in][0]=a). Operators AND together; and, or and not nest with numbered filters: "+
					"filter[or][0][member]=a&filter[or][1][not][member][ne]=b.",
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

// isBulk tells whether a route's operation takes a JSON array: the generic
// create of a resource.
func isBulk(rt *routeView) bool {
	op := rt.Op
	return op.Kind == "create" && op.Generic ||
		op.Kind == "upsert" && spec.UpdateTakesBulk(op.OptionalID, rt.Method, rt.Path, op.Resource.Plural)
}

// writeMethods are the methods whose requests take an Idempotency-Key.
var writeMethods = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// headerParameters are the conditional and idempotency headers a route takes.
func headerParameters(rt *routeView) []any {
	op := rt.Op
	var out []any
	switch op.Kind {
	case "upsert":
		out = append(out, ifMatchParam(), newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string", "const", "*"),
			"description", "* : create only; when a record has the id, 412 and nothing written."))
	case "patch", "delete", "action":
		out = append(out, ifMatchParam(), newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string"),
			"description", "* or entity tags: written only if the record is at none of the versions listed (with *, never): 412 and nothing written otherwise. Not with If-Match."))
	case "get", "get_or_create":
		if op.ETag {
			out = append(out, ifNoneMatchParam())
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

// operatorsSchema is the object of operators a member's filter may hold:
// those that fit its type. In a query string (text) every value is a string.
func operatorsSchema(f *fieldView, text bool) *obj {
	value, list := inputSchema(f), newObj("type", "array", "items", inputSchema(f))
	if f.IsID {
		value, list = ref("InputId"), newObj("type", "array", "items", ref("InputId"))
	}
	boolean := newObj("oneOf", []any{newObj("type", "boolean"), newObj("type", "string", "enum", []any{"true", "false"})})
	if text {
		value, boolean = newObj("type", "string"), newObj("type", "string", "enum", []any{"true", "false"})
		list = newObj("oneOf", []any{newObj("type", "string", "description", "values separated by commas"),
			newObj("type", "array", "items", newObj("type", "string"), "description", "values numbered from 0: [in][0]=a&[in][1]=b")})
	}
	ops := newObj("eq", value, "ne", value)
	bound := value
	if f.Kind == "string" && !text { // a bound of text is any text (an id's, an indexed member's too)
		bound = newObj("oneOf", []any{newObj("type", "string"), newObj("type", "number", "description", "taken as its text")})
	}
	if spec.Type(f.Kind).Ordered() {
		ops.set("gt", bound)
		ops.set("gte", bound)
		ops.set("lt", bound)
		ops.set("lte", bound)
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
	return newObj("type", "string", "pattern", "^"+key+"(,"+key+"){0,"+strconv.Itoa(spec.MaxOrderKeys-1)+"}$", "default", "id",
		"description", "One member, or several (at most "+strconv.Itoa(spec.MaxOrderKeys)+") separated by commas, each with - for descending (else order_direction); "+
			"the id breaks ties. Orders by one of "+strings.Join(sortable, ", ")+" are served by an index.")
}

// ifMatchParam is the If-Match header a write of one record honours.
func ifMatchParam() *obj {
	return newObj("name", "If-Match", "in", "header", "schema", newObj("type", "string"),
		"description", "Write only if the record's ETag is listed (* : if it exists); otherwise 412, nothing written.")
}

// ifNoneMatchParam is the If-None-Match header a read of one record honours.
func ifNoneMatchParam() *obj {
	return newObj("name", "If-None-Match", "in", "header", "schema", newObj("type", "string"),
		"description", "304 without a body when the answer's ETag is listed.")
}

// etagHeader is the ETag an answer of one record carries.
func etagHeader() *obj {
	return newObj("description", `The record's version as a strong entity tag, "3"; for an answer with related records (embedded or expanded) or sparse fields, the version and a digest of the answer, "3-9c1185a5c5e9fc54".`, "schema", newObj("type", "string"))
}

// notModified is the 304 of a read whose If-None-Match lists the ETag.
func notModified() *obj {
	return newObj("description", "Not modified: the record's ETag is one If-None-Match lists.",
		"headers", newObj("ETag", newObj("schema", newObj("type", "string")),
			"X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id")))
}

package gen

import (
	"fmt"
	"sort"
	"strings"

	"records/internal/spec"
)

// components holds every resource's schemas and the shared pieces.
func components(m *apiModel) *obj {
	schemas := newObj()
	schemas.set("Id", newObj("type", "string", "minLength", 1, "maxLength", 255, "pattern", idPattern,
		"description", "A record's id: unique across teams; a UUIDv7 when the server makes it."))
	schemas.set("InputId", newObj("oneOf", []any{ref("Id"), newObj("type", "number", "description", "taken as its text")}))
	schemas.set("Limit", numberOrString("integer", 1, spec.MaxLimit).set("description", fmt.Sprintf("Records per page: 1 to %d, default %d.", spec.MaxLimit, spec.DefaultLimit)))
	schemas.set("Offset", numberOrString("integer", 0, spec.MaxOffset).set("description", "Records to skip, default 0."))
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
	addMeSchemas(schemas)
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
						"description", fmt.Sprintf("Ordered by id; at most %d.", spec.MaxChildren)))
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
		query.set("and", newObj("type", "array", "items", ref(r.Type+"FilterQuery"), "description", "Every filter holds: filter[and][0][member]=value."))
		query.set("or", newObj("type", "array", "items", ref(r.Type+"FilterQuery"), "description", "At least one filter holds: filter[or][0][member]=value."))
		query.set("not", ref(r.Type+"FilterQuery").set("description", "The filter does not hold: filter[not][member]=value."))
		filter.set("and", newObj("type", "array", "items", ref(r.Type+"Filter"), "description", "Every filter holds."))
		filter.set("or", newObj("type", "array", "items", ref(r.Type+"Filter"), "description", "At least one filter holds."))
		filter.set("not", ref(r.Type+"Filter").set("description", "The filter does not hold (a null counts as not matching)."))
		schemas.set(r.Type+"OrderBy", orderBySchema(r))
		schemas.set(r.Type+"Filter", newObj("type", "object", "properties", filter, "additionalProperties", false,
			"description", "Members to exact values (null matches null) or to objects of operators, AND-ed; and, or and not nest up to 8 levels."))
		schemas.set(r.Type+"FilterQuery", newObj("type", "object", "properties", query, "additionalProperties", false,
			"description", "The query string's filters: filter[member]=value or filter[member][operator]=value, AND-ed; "+
				"and, or and not nest up to 8 levels, their filters numbered from 0."))
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
				newObj("WWW-Authenticate", newObj("schema", unauthorizedChallenge),
					"X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))),
			"Forbidden", respond("The token may only read (forbidden), or the caller's role may not do this (permission_denied): an operation its policies do not grant, a member it may not write, a preset changed, a check failed; errors names the members.", plain),
			"NotFound", respond("No such record in the caller's team.", plain),
			"MethodNotAllowed", respond("HEAD of a request that would create a record (HEAD never creates); Allow names GET.",
				newObj("Allow", newObj("schema", newObj("type", "string")), "X-Request-Id", newObj("$ref", "#/components/headers/X-Request-Id"))),
			"RequestTimeout", respond("The body did not arrive in time (30 s by default); the connection is closed.", plain),
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
		"securitySchemes", securitySchemes(),
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
	if strings.Contains(p.Path, ":file") {
		resp.set("404", newObj("$ref", "#/components/responses/NotFound"))
	}
	o.set("responses", resp)
	return o
}

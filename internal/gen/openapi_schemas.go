package gen

import (
	"encoding/json"
	"slices"
	"strings"

	"records/internal/spec"
)

// opSchema names one of an operation's schemas: a generic route's after
// its resource and kind (ReturnList…), any other's after the operation
// (UpdateReturn…), which ranks after a generic route's name.
func opSchema(op *opView, suffix string) schemaName {
	if op.Generic {
		return schemaName{op.Resource.Type + genericStems[op.Kind] + suffix, resourceName, op.Resource.Type}
	}
	return schemaName{strings.TrimPrefix(op.Var, "op") + suffix, operationName, op.Resource.Type}
}

// resourceSchema names a schema of the resource r.
func resourceSchema(r *resourceView, suffix string) schemaName {
	return schemaName{r.Type + suffix, resourceName, r.Type}
}

var genericStems = map[spec.Kind]string{spec.List: "List", spec.Get: "Read", spec.Create: "Create", spec.Patch: "Patch", spec.Delete: "Delete",
	spec.Restore: "Restore", spec.Revert: "Revert"}

// requestBody is the body a route takes: its operation's, or, where the
// route takes a bulk create, that or an array of them.
func (d *openAPIDoc) requestBody(rt *routeView) *obj {
	op := rt.Op
	body := d.requestSchema(op)
	if n, ok := sharedRequest(op); ok {
		return d.schemas.name(n, body)
	}
	if !isBulk(rt) {
		return d.schemas.nameUnlessRef(opSchema(op, "Request"), body)
	}
	batch := opSchema(op, "Batch")
	if isRef(body, op.Resource.Type+"Write") {
		batch = resourceSchema(op.Resource, "WriteBatch")
	}
	body = d.schemas.nameUnlessRef(opSchema(op, "Single"), body)
	bulk := d.schemas.name(batch, newObj("type", "array", "items", body, "minItems", 1, "maxItems", spec.MaxBulk,
		"description", "See Writes."))
	return d.schemas.name(opSchema(op, "Request"), newObj("oneOf", []any{body, bulk}))
}

// sharedRequest names the body of a generic delete, restore or revert
// that takes nothing of its resource's own: every resource's is the same,
// one schema all share (ByIdRequest, RevertRequest).
func sharedRequest(op *opView) (schemaName, bool) {
	plain := op.Generic && op.By == "" && op.Wrapper == "" && len(op.Ignore) == 0 && len(op.Aliases) == 0 &&
		slices.Equal(op.IDMembers, []string{"id"})
	switch {
	case plain && (op.Kind == spec.Delete || op.Kind == spec.Restore):
		return shared("ByIdRequest"), true
	case plain && op.Kind == spec.Revert:
		return shared("RevertRequest"), true
	}
	return schemaName{}, false
}

// isRef tells whether s is exactly a reference to the schema name.
func isRef(s *obj, name string) bool {
	return len(s.keys) == 1 && s.vals["$ref"] == "#/components/schemas/"+name
}

// requestSchema is the body an operation takes. Record members come from
// the resource's <Type>Members schema; the operation adds its id members,
// aliases and ignored members, and nothing else passes
// (unevaluatedProperties: false).
func (d *openAPIDoc) requestSchema(op *opView) *obj {
	r := op.Resource
	props := newObj()
	switch op.Kind {
	case spec.List:
		return d.listRequestSchema(op)
	case spec.Get, spec.GetOrCreate:
		props.set("fields", ref(r.Type+"Fields"))
		if len(r.Expands) > 0 {
			props.set("expand", ref(r.Type+"Expand"))
		}
	case spec.Delete:
		if op.By != "" {
			props.set(op.By, newObj("description", "Deletes every record of this parent.", "allOf", []any{ref("InputId")}))
		}
	case spec.Revert:
		props.set("version", newObj("type", "integer", "minimum", 1, "description", "The version whose members the record takes again."))
	}
	takesRecord := map[spec.Kind]bool{spec.Create: true, spec.Patch: true, spec.Upsert: true, spec.GetOrCreate: true}[op.Kind]
	if takesRecord {
		for _, a := range op.Aliases {
			props.set(a.Key, withDescription(d.member(r.field(a.Value)).input, "Another name of "+a.Value+"."))
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
		// generated from the document share one type for it; a create's
		// names the members it must give.
		if op.Kind == spec.Create && len(r.requiredMembers()) > 0 {
			return ref(r.Type + "Create")
		}
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
	wrapped.set(op.Wrapper, d.schemas.name(opSchema(op, "Record"), closed(inner)))
	return newObj("oneOf", []any{
		d.schemas.name(opSchema(op, "Flat"), closed(flat)),
		d.schemas.name(opSchema(op, "Wrapped"), newObj("type", "object", "properties", wrapped, "required", []any{op.Wrapper}, "additionalProperties", false)),
	})
}

// listRequestSchema is the body of a list: its parameters, and the
// operation's exact filters.
func (d *openAPIDoc) listRequestSchema(op *opView) *obj {
	r := op.Resource
	props := newObj(
		"limit", ref("Limit"),
		"offset", ref("Offset"),
		"order_direction", ref("Direction"),
		"order_by", ref(r.Type+"OrderBy"),
		"filter", ref(r.Type+"Filter"),
		"cursor", ref("Cursor"),
		"count", ref("Count"),
		"fields", ref(r.Type+"Fields"),
	)
	if len(r.Expands) > 0 {
		props.set("expand", ref(r.Type+"Expand"))
	}
	for _, f := range op.Filters {
		props.set(f, d.member(r.field(f)).input)
	}
	return newObj("type", "object", "properties", props, "additionalProperties", false)
}

// embedInput is the input schema of embedded records.
func embedInput(e *embedView) *obj {
	return newObj("type", []any{"array", "null"}, "items", ref(e.Child.Type+"Write"),
		"description", "Created with the record, in one transaction; only when creating.")
}

// answerSchema is what a route answers on success: its operation's
// envelope, or, where the route takes a bulk create, that or the
// records created.
func (d *openAPIDoc) answerSchema(rt *routeView) *obj {
	op := rt.Op
	answer := d.envelopeSchema(op.shape, op)
	if !isBulk(rt) {
		return d.schemas.nameUnlessRef(opSchema(op, "Answer"), answer)
	}
	name := opSchema(op, "Answer")
	if !isRef(answer, op.Resource.Type) {
		answer = d.schemas.name(name, answer)
		name = opSchema(op, "BulkAnswer")
	}
	r := op.Resource
	batch := d.schemas.name(resourceSchema(r, "Batch"), newObj("type", "object", "properties",
		newObj(r.Plural, newObj("type", "array", "items", ref(r.Type))),
		"required", []any{r.Plural}, "additionalProperties", false,
		"description", "In the order given."))
	return d.schemas.name(name, newObj("oneOf", []any{answer, batch}))
}

// envelopeSchema describes the JSON an envelope writes.
func (d *openAPIDoc) envelopeSchema(n *envNode, op *opView) *obj {
	switch {
	case n.IsObject:
		props := newObj()
		var req []any
		for i, k := range n.Keys {
			props.set(k, d.envelopeSchema(n.Values[i], op))
			req = append(req, k)
		}
		return newObj("type", "object", "properties", props, "required", req, "additionalProperties", false)
	case n.IsArray:
		if len(n.Items) == 1 {
			return newObj("type", "array", "items", d.envelopeSchema(n.Items[0], op), "minItems", 1, "maxItems", 1)
		}
		var items []any
		for _, it := range n.Items {
			items = append(items, d.envelopeSchema(it, op))
		}
		return newObj("type", "array", "prefixItems", items, "items", false)
	case n.Placeholder != "":
		base, member, _ := strings.Cut(n.Placeholder, ".")
		switch base {
		case "$record":
			if member != "" {
				return d.member(op.Resource.field(member)).output
			}
			return d.recordSchema(op)
		case "$records":
			return newObj("type", "array", "items", d.recordSchema(op))
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
func (d *openAPIDoc) recordSchema(op *opView) *obj {
	switch op.Kind {
	case spec.List, spec.Get, spec.GetOrCreate:
		return ref(op.Resource.Type + "Read")
	}
	return ref(op.Resource.Type)
}

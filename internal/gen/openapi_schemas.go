package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"records/internal/spec"
)

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
	numeric := newObj("type", "string", "pattern", "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$") // a JSON number's text
	switch f.Kind {
	case "string":
		if f.Input == "IndexedString" {
			return newObj("oneOf", []any{newObj("type", "string", "maxLength", spec.MaxIndexedText,
				"description", fmt.Sprintf("At most %d bytes of UTF-8: the member is indexed.", spec.MaxIndexedText)),
				newObj("type", "number", "description", "taken as its text"), null})
		}
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
	case !f.Nullable():
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

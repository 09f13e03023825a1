package gen

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// document is a decoded OpenAPI document, read operation by operation.
type document struct{ root map[string]any }

func decodeDocument(t *testing.T, b []byte) document {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	return document{root}
}

// operations are the document's operations by "METHOD path", each with
// the path's parameters and the document's security when it has none of
// its own, its parameters in a stable order.
func (d document) operations() map[string]map[string]any {
	out := map[string]map[string]any{}
	paths, _ := d.root["paths"].(map[string]any)
	for path, item := range paths {
		item, _ := d.deref(item).(map[string]any)
		for method, op := range item {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			o := map[string]any{}
			for k, v := range op {
				o[k] = v
			}
			var params []any
			for _, p := range append(anyList(item["parameters"]), anyList(op["parameters"])...) {
				params = append(params, d.deref(p))
			}
			sortParameters(params)
			o["parameters"] = params
			// A body is optional unless required says otherwise: a
			// required of false is the same as none.
			if body, ok := d.deref(o["requestBody"]).(map[string]any); ok && body["required"] == false {
				b := map[string]any{}
				for k, v := range body {
					if k != "required" {
						b[k] = v
					}
				}
				o["requestBody"] = b
			}
			if _, ok := o["security"]; !ok {
				o["security"] = d.root["security"]
			}
			out[strings.ToUpper(method)+" "+path] = o
		}
	}
	return out
}

// deref follows n's $refs to what they name. Members beside a $ref
// (OpenAPI 3.1 allows them) that are not prose are kept, over what it
// names.
func (d document) deref(n any) any {
	for range 100 {
		m, ok := n.(map[string]any)
		if !ok {
			return n
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return n
		}
		target := d.pointer(ref)
		var extra map[string]any
		for k, v := range m {
			if k != "$ref" && !prose[k] {
				if extra == nil {
					extra = map[string]any{}
				}
				extra[k] = v
			}
		}
		if extra == nil {
			n = target
			continue
		}
		t, ok := target.(map[string]any)
		if !ok {
			return m
		}
		merged := map[string]any{}
		for k, v := range t {
			merged[k] = v
		}
		for k, v := range extra {
			merged[k] = v
		}
		n = merged
	}
	panic("a chain of 100 references")
}

// coverByRanges is op (of d) with the statuses of before's operation that
// op answers by a range (4XX for a 404 it does not name) written out: the
// range's response, with those of its headers the status's response had
// (a range's other headers are optional ones of its other statuses). A
// range that covers no status of before stays, and compares as new.
func (d document) coverByRanges(before document, was, op map[string]any) map[string]any {
	old, _ := was["responses"].(map[string]any)
	now, _ := op["responses"].(map[string]any)
	if old == nil || now == nil {
		return op
	}
	responses := map[string]any{}
	for k, v := range now {
		responses[k] = v
	}
	used := map[string]bool{}
	for status, answer := range old {
		if _, ok := now[status]; ok || len(status) != 3 {
			continue
		}
		rng := status[:1] + "XX"
		covering, ok := d.deref(now[rng]).(map[string]any)
		if !ok {
			continue
		}
		had, _ := before.deref(answer).(map[string]any)
		headers, _ := covering["headers"].(map[string]any)
		hadHeaders, _ := had["headers"].(map[string]any)
		kept := map[string]any{}
		for name := range hadHeaders {
			if h, ok := headers[name]; ok {
				kept[name] = h
			}
		}
		written := map[string]any{}
		for k, v := range covering {
			written[k] = v
		}
		written["headers"] = kept
		responses[status] = written
		used[rng] = true
	}
	for rng := range used {
		delete(responses, rng)
	}
	out := map[string]any{}
	for k, v := range op {
		out[k] = v
	}
	out["responses"] = responses
	return out
}

// flatten writes a schema that adds only required members to the one
// schema of its allOf ({"allOf": [ReturnSparse], "required": [...]}, and
// keywords equal to that schema's, as its type) as that schema with those
// members required too: what both accept is the same, for required
// interacts with no other keyword. Any other allOf stays as it is.
func (d document) flatten(n any) any {
	m, ok := n.(map[string]any)
	if !ok {
		return n
	}
	all, ok := m["allOf"].([]any)
	if !ok || len(all) != 1 {
		return n
	}
	inner, ok := d.flatten(d.deref(all[0])).(map[string]any)
	if !ok {
		return n
	}
	for k, v := range m {
		if k != "allOf" && k != "required" && !prose[k] && !reflect.DeepEqual(v, inner[k]) {
			return n
		}
	}
	out := map[string]any{}
	for k, v := range inner {
		out[k] = v
	}
	required := slices.Clone(anyList(m["required"]))
	for _, r := range anyList(inner["required"]) {
		if !slices.Contains(required, r) {
			required = append(required, r)
		}
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// pointer finds a local reference, "#/components/schemas/Id".
func (d document) pointer(ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		panic("a reference outside the document: " + ref)
	}
	var node any = d.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := node.(map[string]any)
		if !ok || m[part] == nil {
			panic("a reference to nothing: " + ref)
		}
		node = m[part]
	}
	return node
}

package gen

import (
	"encoding/json"
	"strings"
)

// What the schema's options say of a member, in the OpenAPI document
// (DESIGN §14): the keywords of its values, and the words of its
// description.

// valueKeywords sets on s, a schema of the member's own JSON type (not its
// null or numeric-text alternatives), the keywords its rule states.
func (f *fieldView) valueKeywords(s *obj) *obj {
	switch f.Kind {
	case "string":
		if f.MinLen > 0 {
			s.set("minLength", f.MinLen)
		}
		if f.MaxLen > 0 {
			s.set("maxLength", f.MaxLen)
		}
		switch len(f.Patterns) {
		case 0:
		case 1:
			s.set("pattern", f.Patterns[0])
		default:
			var all []any
			for _, p := range f.Patterns {
				all = append(all, newObj("pattern", p))
			}
			s.set("allOf", all)
		}
		if f.Enum != nil {
			s.set("enum", stringsAny(f.Enum))
		}
	case "integer", "number":
		if f.Min != "" {
			s.set("minimum", json.Number(f.Min))
		}
		if f.Max != "" {
			s.set("maximum", json.Number(f.Max))
		}
	}
	return s
}

// optionKeywords sets on s, the schema of what a client writes for the
// member, its default and whether it is never answered.
func (f *fieldView) optionKeywords(s *obj) *obj {
	if f.DefaultJS != "" {
		s.set("default", json.RawMessage(f.DefaultJS))
	}
	if f.Sensitive {
		s.set("writeOnly", true)
	}
	return s
}

// optionWords are the sentences of the member's description its options
// give: its comment, and what the document's keywords cannot say.
func (f *fieldView) optionWords() []string {
	var parts []string
	if f.Comment != "" {
		c := f.Comment
		if !strings.HasSuffix(c, ".") {
			c += "."
		}
		parts = append(parts, c)
	}
	if f.Required {
		parts = append(parts, "Required: a create gives it (unless it has a default), and it is never null.")
	}
	if f.Immutable {
		parts = append(parts, "Set on create, then fixed: an update may send the same value, never another.")
	}
	if f.Unique {
		parts = append(parts, "Unique: no two records have the same value.")
	}
	if f.Sensitive {
		parts = append(parts, "Sensitive: written, never answered.")
	}
	if f.MinLen > 0 || f.MaxLen > 0 {
		parts = append(parts, "Lengths count characters.")
	}
	return parts
}

func stringsAny(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// requiredMembers are the members a create must give: required, with no
// default to fill them.
func (r *resourceView) requiredMembers() []any {
	var out []any
	for _, f := range r.Writable() {
		if f.Required && f.Default == "" {
			out = append(out, f.Member)
		}
	}
	return out
}

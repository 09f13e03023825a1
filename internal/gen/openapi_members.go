package gen

import (
	"fmt"
	"strings"

	"records/internal/spec"
)

// memberSchemas are everything the document says of one member, built in
// one place (member): what a body may write, what is answered, and how a
// list filters by it, in a body and in a query string.
type memberSchemas struct {
	input       *obj // in a body that writes, with the member's description
	output      *obj // in a record answered, with the member's description
	filter      *obj // in a list's filter in a body: a value, or operators
	queryFilter *obj // in a list's filter in a query string
	queryValue  *obj // an exact filter of its own in a query string
}

// member builds the schemas of one member. Members of one type share
// their schemas (every text member's input is TextInput, its filter
// TextFilter), so the document describes each type's values and operators
// once. A member whose values are narrower than its type's — a length, a
// pattern, an enum of its own — takes schemas of its own, built here by
// the same builders from its narrower value (inputSchema): named after
// its resource and itself (ReturnStatusInput, in the resource's scope)
// rather than its type, which named is the one place to say, since the
// catalog refuses one name for two schemas.
func (d *openAPIDoc) member(f *fieldView) memberSchemas {
	if s, ok := d.members[f]; ok {
		return s
	}
	named := func(suffix string) schemaName { return shared(memberType(f) + suffix) }
	// A filter compares a member with a value of its type, whatever the
	// member's rule (a prefix, a bound need not be a whole value).
	value := ref("InputId")
	if !f.IsID {
		value = d.schemas.name(named("Input"), typeInput(f))
	}
	input := value
	if f.narrowed() {
		input = d.schemas.name(schemaName{f.Owner + goField(f.Member) + "Input", resourceName, f.Owner}, inputSchema(f))
	}
	s := memberSchemas{
		input:      input,
		output:     outputSchema(f),
		queryValue: queryScalar(f),
	}
	if desc := memberDescription(f); desc != "" {
		s.input = withDescription(input, desc)
		if !f.IsID {
			s.output.set("description", desc)
		}
	}
	s.input = f.optionKeywords(s.input.copy())
	if f.Filterable() {
		ops := d.schemas.name(named("Operators"), operatorsSchema(f, value))
		s.filter = d.schemas.name(named("Filter"), newObj("oneOf", []any{value, ops}))
		// In a query string every value is text: the operators depend on
		// the type's operators alone.
		q := queryOperatorsName(f)
		queryOps := d.schemas.name(shared(q+"QueryOperators"), queryOperatorsSchema(f))
		s.queryFilter = d.schemas.name(shared(q+"QueryFilter"), newObj("oneOf", []any{ref("Text"), queryOps}))
	}
	d.members[f] = s
	return s
}

// memberType names a member's type in the document: the prefix of the
// schemas its members share.
func memberType(f *fieldView) string {
	switch {
	case f.IsID:
		return "Id"
	case f.Input == "IndexedString":
		return "IndexedText"
	}
	return memberTypes[f.Kind]
}

var memberTypes = map[string]string{
	"string": "Text", "integer": "Integer", "number": "Number", "boolean": "Boolean",
	"date": "Date", "datetime": "DateTime", "object": "Object", "string_map": "StringMap",
}

// queryOperatorsName names the operators a member takes in a query string,
// where every value is text, so members of several types take the same:
// text (with contains and prefix), ordered ones (with gt … lte), others.
func queryOperatorsName(f *fieldView) string {
	switch {
	case f.Kind == "string":
		return "Text"
	case spec.Type(f.Kind).Ordered():
		return "Ordered"
	}
	return memberTypes[f.Kind]
}

// withDescription is a reference with a description beside it.
func withDescription(r *obj, desc string) *obj {
	return r.copy().set("description", desc)
}

// memberValueSchemas are the shared schemas of members' values: the
// alternatives a member's input chooses from, and the operands operators
// share in bodies and query strings.
func memberValueSchemas(c *catalog) {
	c.define("Text", newObj("type", "string"))
	c.define("Integer", newObj("type", "integer"))
	c.define("Number", newObj("type", "number"))
	c.define("Boolean", newObj("type", "boolean"))
	c.define("NumberAsText", newObj("type", "number", "description", "taken as its text"))
	c.define("NumericText", newObj("type", "string", "pattern", "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$",
		"description", "A number written as text: a JSON number's text, nothing more."))
	c.define("TextBound", newObj("oneOf", []any{ref("Text"), ref("NumberAsText")},
		"description", "Any text: a bound of text need not be a whole value of the member."))
	c.define("BooleanText", newObj("type", "string", "enum", []any{"true", "false"}, "description", "true or false, as text."))
	c.define("IndexedText", newObj("type", "string", "maxLength", spec.MaxIndexedText,
		"description", fmt.Sprintf("At most %d bytes of UTF-8: the member is indexed.", spec.MaxIndexedText)))
	c.define("IsNull", newObj("oneOf", []any{ref("Boolean"), ref("BooleanText")},
		"description", "true: the member is null; false: it is not."))
	c.define("Contains", newObj("type", "string", "description", "Matches text holding this, ignoring the case of A–Z."))
	c.define("Prefix", newObj("type", "string", "description", "Matches text starting with this."))
	c.define("TextList", newObj("oneOf", []any{
		ref("CommaSeparated"),
		ref("TextArray"),
	}, "description", "Values in a query string."))
	c.define("CommaSeparated", newObj("type", "string", "description", "values separated by commas"))
	c.define("TextArray", newObj("type", "array", "items", ref("Text"), "description", "values numbered from 0: [in][0]=a&[in][1]=b"))
}

// typeInput is what a client may send for a value of the member's type:
// the type, null, and the other JSON type the reference's samples use
// where one exists.
func typeInput(f *fieldView) *obj {
	null := newObj("type", "null")
	switch f.Kind {
	case "string":
		if f.Input == "IndexedString" {
			return newObj("oneOf", []any{ref("IndexedText"), ref("NumberAsText"), null})
		}
		return newObj("oneOf", []any{ref("Text"), ref("NumberAsText"), null})
	case "integer":
		return newObj("oneOf", []any{ref("Integer"), ref("NumericText"), null})
	case "number":
		return newObj("oneOf", []any{ref("Number"), ref("NumericText"), null})
	case "boolean":
		return newObj("oneOf", []any{ref("Boolean"), ref("BooleanText"), null})
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

// narrowed tells whether the member takes fewer values than its type: a
// rule of its own (lengths, patterns, an enum, bounds), or never null.
func (f *fieldView) narrowed() bool { return !f.IsID && (f.RuleDecl() != "" || f.Required) }

// inputSchema is what a client may write to a member: typeInput's, with
// the keywords of the member's rule on its own type, and null only when
// it may be null; a text with a rule takes no number as its text.
func inputSchema(f *fieldView) *obj {
	if !f.narrowed() {
		return typeInput(f)
	}
	var own *obj
	var others []any
	switch f.Kind {
	case "string":
		own = newObj("type", "string")
		if f.Input == "IndexedString" {
			own.set("maxLength", spec.MaxIndexedText)
		}
		if f.RuleDecl() == "" {
			others = append(others, ref("NumberAsText"))
		}
	case "integer":
		own, others = newObj("type", "integer"), []any{ref("NumericText")}
	case "number":
		own, others = newObj("type", "number"), []any{ref("NumericText")}
	case "boolean":
		own, others = newObj("type", "boolean"), []any{ref("BooleanText")}
	case "date":
		own = newObj("type", "string", "format", "date")
	case "datetime":
		own = newObj("type", "string", "format", "date-time")
	case "object":
		own = newObj("type", "object")
	case "string_map":
		own = newObj("type", "object", "additionalProperties", newObj("type", "string"))
	}
	f.valueKeywords(own)
	if f.Nullable() {
		others = append(others, newObj("type", "null"))
	}
	if len(others) == 0 {
		return own
	}
	return newObj("oneOf", append([]any{own}, others...))
}

// operatorsSchema is the object of operators a member's filter may hold in
// a body: each takes the member's input.
func operatorsSchema(f *fieldView, value *obj) *obj {
	bound := value
	if f.Kind == "string" {
		bound = ref("TextBound") // a bound of text is any text (an id's, an indexed member's too)
	}
	return operators(f, value, bound, newObj("type", "array", "items", value), ref("IsNull"))
}

// queryOperatorsSchema is the object of operators a member's filter may
// hold in a query string, where every value is text.
func queryOperatorsSchema(f *fieldView) *obj {
	return operators(f, ref("Text"), ref("Text"), ref("TextList"), ref("BooleanText"))
}

// operators are those that fit a member's type, taking one value, a bound
// (gt … lte), a list of values, or is_null's boolean; the operands of
// contains and prefix are the same in a body and a query string.
func operators(f *fieldView, value, bound, list, isNull *obj) *obj {
	ops := newObj("eq", value, "ne", value)
	if spec.Type(f.Kind).Ordered() {
		ops.set("gt", bound)
		ops.set("gte", bound)
		ops.set("lt", bound)
		ops.set("lte", bound)
	}
	ops.set("in", list)
	ops.set("nin", list)
	if f.Kind == "string" {
		ops.set("contains", ref("Contains"))
		ops.set("prefix", ref("Prefix"))
	}
	ops.set("is_null", isNull)
	return newObj("type", "object", "properties", ops, "additionalProperties", false, "minProperties", 1)
}

// outputSchema is how a member is answered.
func outputSchema(f *fieldView) *obj {
	switch {
	case f.IsID:
		return ref("Id")
	case f.ReadOnly && !f.Nullable():
		return newObj("type", "integer", "readOnly", true)
	case f.Kind == "string_map":
		return newObj("type", []any{"object", "null"}, "additionalProperties", newObj("type", "string"))
	case f.Kind == "object":
		return newObj("type", []any{"object", "null"})
	}
	typ := map[string]string{"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "date": "string", "datetime": "string"}[f.Kind]
	s := newObj("type", []any{typ, "null"})
	if !f.Nullable() {
		s.set("type", typ)
	}
	if f.Kind == "date" {
		s.set("format", "date")
	}
	if f.Kind == "datetime" {
		s.set("format", "date-time")
	}
	if f.Enum != nil {
		enum := stringsAny(f.Enum)
		if f.Nullable() {
			enum = append(enum, nil)
		}
		s.set("enum", enum)
	}
	return s
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

func memberDescription(f *fieldView) string {
	parts := f.optionWords()
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

package gen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"records/internal/spec"
)

// How a member is typed in each client: as a record answers it, as a write
// takes it, and the names Go and TypeScript give it.

// newClientMember is a member named json, typed goType and tsType.
func newClientMember(json, goName, goType, tsType string, optional bool, doc string) *clientMember {
	m := &clientMember{JSON: json, GoName: goName, GoType: goType, GoTag: fmt.Sprintf(`json:%q`, json),
		TSKey: tsKey(json), TSType: tsType, Doc: doc}
	if optional {
		m.TSKey += "?"
	}
	return m
}

// initialisms are the words Go writes in capitals within a name.
var initialisms = map[string]bool{"id": true, "url": true, "uri": true, "api": true, "json": true, "http": true, "sku": true}

// goField is the Go name of an answer's member: new_user_group →
// NewUserGroup, provided_id → ProvidedID.
func goField(key string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == ' ' || r == '-' }) {
		if initialisms[strings.ToLower(w)] {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// tsIdent is a name TypeScript takes as a property without quotes.
var tsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func tsKey(name string) string {
	if tsIdent.MatchString(name) {
		return name
	}
	return fmt.Sprintf("%q", name)
}

// tsAccess is the TypeScript expression of member name of x.
func tsAccess(x, name string) string {
	if tsIdent.MatchString(name) {
		return x + "." + name
	}
	return fmt.Sprintf("%s[%q]", x, name)
}

// clientScalars are each member type's value in Go and TypeScript.
var clientScalars = map[spec.Type][2]string{
	spec.String: {"string", "string"}, spec.Integer: {"int64", "number"}, spec.Number: {"float64", "number"},
	spec.Boolean: {"bool", "boolean"}, spec.Date: {"Date", "string"}, spec.DateTime: {"time.Time", "string"},
	spec.Object: {"map[string]any", "Record<string, unknown>"}, spec.StringMap: {"map[string]string", "Record<string, string>"},
}

// clientMemberTypes are a member's types in Go and TypeScript: its scalar's, or
// its enum type's, named after the record's type (typ) and the member.
func clientMemberTypes(typ string, f *fieldView) (string, string) {
	if f.Enum != nil {
		name := typ + goField(f.Member)
		return name, name
	}
	t := clientScalars[spec.Type(f.Kind)]
	return t[0], t[1]
}

// newClientEnum is the type of the member's values.
func newClientEnum(typ string, f *fieldView) *clientEnum {
	name, _ := clientMemberTypes(typ, f)
	e := &clientEnum{Name: name, Member: f.Member}
	for _, v := range f.Enum {
		e.Values = append(e.Values, clientEnumValue{GoName: name + goField(v), Value: v, JSON: strconv.Quote(v)})
	}
	return e
}

// answeredMember is a member as a record answers it: nullable ones as
// pointers (maps are nil when null).
func answeredMember(typ string, f *fieldView) *clientMember {
	goType, tsType := clientMemberTypes(typ, f)
	if f.Nullable() {
		if !strings.HasPrefix(goType, "map[") {
			goType = "*" + goType
		}
		tsType += " | null"
	}
	return newClientMember(f.Member, f.GoName, goType, tsType, false, memberDescription(f))
}

// writeMember is a member of a write: absent, a value or, unless it is
// required, null.
func writeMember(typ string, f *fieldView) *clientMember {
	goType, tsType := clientMemberTypes(typ, f)
	if !f.Required {
		tsType += " | null"
	}
	m := newClientMember(f.Member, f.GoName, "Optional["+goType+"]", tsType, true, memberDescription(f))
	m.GoTag = fmt.Sprintf(`json:"%s,omitzero"`, f.Member)
	return m
}

// clientInput is what a method takes besides its id: its parameter and
// the parameter's type (%s the resource's) in Go and in TypeScript.
type clientInput struct {
	name           string
	goType, tsType string
}

// clientInputs are the kinds of input, by clientCall.Input.
var clientInputs = map[string]clientInput{
	"record":  {"rec", "%sWrite", "%sWrite"},
	"records": {"recs", "[]%sWrite", "%sWrite[]"},
	"list":    {"p", "*ListParams", "ListParams"},
	"read":    {"p", "*ReadParams", "ReadParams"},
	"page":    {"p", "*PageParams", "PageParams"},
	"version": {"version", "int64", "number"},
}

// InName is the parameter of the method's input.
func (c *clientCall) InName() string { return clientInputs[c.Input].name }

// InGoType and InTSType are the input's type in each language.
func (c *clientCall) InGoType() string {
	return strings.ReplaceAll(clientInputs[c.Input].goType, "%s", c.Resource.Type)
}

func (c *clientCall) InTSType() string {
	return strings.ReplaceAll(clientInputs[c.Input].tsType, "%s", c.Resource.Type)
}

// InBody tells whether the input is sent as the body (records), else as
// the parameters of a list, a read or a page.
func (c *clientCall) InBody() bool {
	return c.Input == "record" || c.Input == "records" || c.Input == "version"
}

// InBodyGo and InBodyTS are the body an input sends: the input itself, or
// for a revert's version the object naming it.
func (c *clientCall) InBodyGo() string {
	if c.Input == "version" {
		return `map[string]int64{"version": version}`
	}
	return c.InName()
}

func (c *clientCall) InBodyTS() string {
	if c.Input == "version" {
		return "{ version }"
	}
	return c.InName()
}

// fixedQuery is a query string a call always sends, in each language.
type fixedQuery struct{ Go, TS string }

// purgeQuery is the query string of a delete that erases for good.
var purgeQuery = &fixedQuery{Go: "purgeQuery()", TS: `new URLSearchParams({ permanent: "true" })`}

// IDInGo names the Go client's constant of where the id goes (inPath…).
func (c *clientCall) IDInGo() string { return goName(c.IDIn) }

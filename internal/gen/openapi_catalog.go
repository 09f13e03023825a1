package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// catalog holds the document's component schemas. Every schema a client
// generator would otherwise meet written out in place and have to name —
// an object, a choice (oneOf, anyOf), an enum, a choice's alternative —
// is named here, so no generator invents names (two of which can
// collide). A schema built twice is one component: a contract route's
// answer that is also the generic route's, the filter shared by every
// text member; but a resource's schemas are folded only with its own
// (every resource's delete takes the same body, each under its name). Of
// the names it was offered, it takes the one of the lowest rank, the
// first offered among equals.
type catalog struct {
	// byContent finds the schema built before with the same content, in
	// the same resource; fixed finds a fixed name's schema.
	byContent map[string]*schemaEntry
	fixed     map[string]*schemaEntry
	entries   []*schemaEntry
}

// The ranks of names, lowest first.
const (
	// fixedName is a name references spell out (ref("Id"),
	// ref("ReturnWrite")): two fixed names are two schemas, however alike
	// (ReturnLineItemExpanded and a sibling's), and one names one schema.
	fixedName = iota
	// resourceName is a resource's (ReturnFilter) or a member type's
	// (TextInput) schema's name.
	resourceName
	// operationName is a schema of one operation (UpdateReturnAnswer).
	operationName
)

type schemaEntry struct {
	id     int
	key    string // the resource and the content
	schema *obj
	offers []schemaName
	fixed  string // its fixed name, if it has one
	name   string // chosen by named
}

// schemaName is a name offered to a schema, its rank, and the resource it
// belongs to ("" for a schema all share).
type schemaName struct {
	name     string
	rank     int
	resource string
}

// shared is the name of a schema resources share.
func shared(name string) schemaName { return schemaName{name, resourceName, ""} }

// schemaRef is a reference to an entry, whose name is known only once
// every schema has been built. Before that it writes the entry's number,
// so schemas holding references compare by what they refer to.
type schemaRef struct{ e *schemaEntry }

func (r schemaRef) MarshalJSON() ([]byte, error) {
	if r.e.name == "" {
		return json.Marshal("#" + strconv.Itoa(r.e.id))
	}
	return json.Marshal("#/components/schemas/" + r.e.name)
}

func newCatalog() *catalog {
	return &catalog{byContent: map[string]*schemaEntry{}, fixed: map[string]*schemaEntry{}}
}

// define puts a schema all share under its fixed name, for ref(name).
func (c *catalog) define(name string, s *obj) { c.name(schemaName{name, fixedName, ""}, s) }

// defineFor puts one of r's schemas under its fixed name.
func (c *catalog) defineFor(r *resourceView, name string, s *obj) {
	c.name(schemaName{name, fixedName, r.Type}, s)
}

// name offers a name to s and answers a reference to it.
func (c *catalog) name(n schemaName, s *obj) *obj {
	b, err := json.Marshal(s)
	if err != nil {
		panic("an OpenAPI schema that is not JSON: " + err.Error())
	}
	key := n.resource + "\x00" + string(b)
	e := c.byContent[key]
	if n.rank == fixedName {
		switch f := c.fixed[n.name]; {
		case f != nil && f.key != key:
			panic("two OpenAPI schemas are defined as " + n.name)
		case f != nil:
			e = f
		case e != nil && e.fixed != "":
			e = nil // alike, but another fixed name's
		}
	}
	if e == nil {
		e = &schemaEntry{id: len(c.entries), key: key, schema: s}
		c.entries = append(c.entries, e)
		if c.byContent[key] == nil {
			c.byContent[key] = e
		}
	}
	if n.rank == fixedName {
		e.fixed = n.name
		c.fixed[n.name] = e
	}
	e.offers = append(e.offers, n)
	return newObj("$ref", schemaRef{e})
}

// nameUnlessRef names s, unless it is a reference already.
func (c *catalog) nameUnlessRef(n schemaName, s *obj) *obj {
	if len(s.keys) == 1 && s.keys[0] == "$ref" {
		return s
	}
	return c.name(n, s)
}

// named chooses every schema's name and answers those the document uses
// (that roots refer to, or schemas they refer to): a shared schema no
// member needs — the indexed text of a schema without one — is left out.
// Two schemas under one name, or one under two fixed names, are mistakes
// of the generator.
func (c *catalog) named(roots ...any) (*obj, error) {
	taken := map[string]*schemaEntry{}
	for _, e := range c.entries {
		best := e.offers[0]
		for _, o := range e.offers[1:] {
			if o.rank == fixedName && best.rank == fixedName && o.name != best.name {
				return nil, fmt.Errorf("the OpenAPI schema %s is also defined as %s", best.name, o.name)
			}
			if o.rank < best.rank {
				best = o
			}
		}
		if other := taken[best.name]; other != nil {
			a, _ := json.Marshal(other.schema)
			b, _ := json.Marshal(e.schema)
			return nil, fmt.Errorf("two OpenAPI schemas named %s:\n%s\n%s", best.name, a, b)
		}
		taken[best.name] = e
		e.name = best.name
	}
	used := map[string]bool{}
	var visit func(v any)
	use := func(name string) {
		if e := taken[name]; e != nil && !used[name] {
			used[name] = true
			visit(e.schema)
		}
	}
	visit = func(v any) {
		switch v := v.(type) {
		case *obj:
			for _, k := range v.keys {
				if s, ok := v.vals[k].(string); ok && k == "$ref" {
					use(strings.TrimPrefix(s, "#/components/schemas/"))
				}
				visit(v.vals[k])
			}
		case []any:
			for _, x := range v {
				visit(x)
			}
		case schemaRef:
			use(v.e.name)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	out := newObj()
	for _, n := range names {
		out.set(n, taken[n].schema)
	}
	return out, nil
}

package gen

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// opView is one operation: an entry of the route table or a generic route.
type opView struct {
	Var        string // Go variable, e.g. "opUpdateReturn"
	Name       string
	Kind       string // route-table kind, e.g. "get_or_create"
	KindConst  string // the kind's constant in package spec, e.g. "GetOrCreate"
	Resource   *resourceView
	IDMembers  []string
	Wrapper    string
	Aliases    []pair
	Ignore     []string
	Filters    []string
	Set        []pair // member, JSON value
	By         string
	ByColumn   string
	OptionalID bool
	Secret     bool
	Envelope   []envPart
	// ETag is true when the envelope is the plain record: answers carry
	// its version as ETag.
	ETag bool
	// Generic is true for the routes every resource gets.
	Generic bool
	// envelope as a JSON-ish shape, for the OpenAPI document.
	shape *envNode
}

// routeView is one registered method and path.
type routeView struct {
	Method     string
	Path       string
	Op         *opView
	Deprecated bool
	Successor  string // the contract path, with {id}, of a deprecated alias
	// NoID is true for a route that lacks the :id its contract route has.
	NoID bool
}

// envPart is a piece of an envelope: literal JSON text, or a placeholder's
// value: a member of the record (Field), or the placeholder Of names
// ("record", "records", "paging", "id", "created" or "secret").
type envPart struct {
	Literal string
	Field   *fieldView
	Of      string
}

// buildAPI checks the route table against the resources and makes the
// operations and routes: the table's, then the generic ones of every
// resource whose method and path the table does not take.
func buildAPI(table *routeTable, resources []*resourceView, paths importPaths) (*apiModel, error) {
	m := &apiModel{Resources: resources, paths: paths}
	errs := &tableErrors{file: table.File}
	byType := map[string]*resourceView{}
	var typeNames []string
	for _, r := range resources {
		byType[r.Type] = r
		typeNames = append(typeNames, r.Type)
	}
	taken := map[string]int{} // "METHOD /path" → line
	names := map[string]int{}
	for _, spec := range table.Ops {
		if line, dup := names[spec.Name]; dup {
			errs.add(spec.Line, "operation name %q is used at line %d too", spec.Name, line)
		}
		names[spec.Name] = spec.Line
		op := buildOp(spec, byType, typeNames, errs)
		if op == nil {
			continue
		}
		m.Ops = append(m.Ops, op)
		add := func(r routeSpec, deprecated bool) {
			key := r.String()
			if line, dup := taken[key]; dup {
				errs.add(r.Line, "route %s is also declared at line %d; one method and path answers one operation", key, line)
				return
			}
			taken[key] = r.Line
			rv := &routeView{Method: r.Method, Path: r.Path, Op: op, Deprecated: deprecated}
			if deprecated {
				rv.Successor = strings.ReplaceAll(spec.Route.Path, ":id", "{id}")
			}
			rv.NoID = strings.Contains(spec.Route.Path, ":id") && !strings.Contains(r.Path, ":id")
			m.Routes = append(m.Routes, rv)
		}
		add(spec.Route, false)
		for _, r := range spec.Also {
			add(r, false)
		}
		for _, r := range spec.Deprecated {
			add(r, true)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	for _, r := range resources {
		for _, op := range genericOps(r) {
			route := op.route
			if _, ok := taken[route.String()]; ok {
				continue
			}
			m.Ops = append(m.Ops, op.opView)
			m.Routes = append(m.Routes, &routeView{Method: route.Method, Path: route.Path, Op: op.opView})
		}
	}
	sortRoutes(m.Routes)
	return m, nil
}

// memberName is what an id member, alias, ignored member or wrapper may be called.
var memberName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func buildOp(spec *opSpec, byType map[string]*resourceView, typeNames []string, errs *tableErrors) *opView {
	line := func(key string) int {
		if l, ok := spec.lines[key]; ok {
			return l
		}
		return spec.Line
	}
	if !slices.Contains(kinds, spec.Kind) {
		errs.add(line("kind"), "unknown kind %q%s; valid: %s", spec.Kind, closest(spec.Kind, kinds), strings.Join(kinds, ", "))
		return nil
	}
	res := byType[spec.Resource]
	if res == nil {
		errs.add(line("resource"), "unknown resource %q%s; valid: %s", spec.Resource, closest(spec.Resource, typeNames), strings.Join(typeNames, ", "))
		return nil
	}
	op := &opView{
		Var:        "op" + goName(spec.Name),
		Name:       spec.Name,
		Kind:       spec.Kind,
		KindConst:  kindConst(spec.Kind),
		Resource:   res,
		IDMembers:  spec.ID,
		Wrapper:    spec.Wrapper,
		Aliases:    spec.Aliases,
		Ignore:     spec.Ignore,
		Filters:    spec.Filters,
		By:         spec.By,
		OptionalID: spec.OptionalID,
		Secret:     spec.Secret,
	}
	if len(op.IDMembers) == 0 {
		op.IDMembers = []string{"id"}
	}
	members := res.Members
	memberList := strings.Join(members, ", ")
	unknown := func(key, name string) {
		errs.add(line(key), "%s: %s has no writable member %q%s; valid: %s", key, res.Type, name, closest(name, members), memberList)
	}
	only := func(key string, allowed ...string) {
		if _, given := spec.lines[key]; given && !slices.Contains(allowed, spec.Kind) {
			errs.add(line(key), "%s applies only to kind %s, not %s", key, strings.Join(allowed, " or "), spec.Kind)
		}
	}
	for _, id := range op.IDMembers {
		if !memberName.MatchString(id) {
			errs.add(line("id"), "id member %q is not a valid member name", id)
		} else if id != "id" && slices.Contains(members, id) {
			errs.add(line("id"), "id member %q is a member of %s; an id member must not be", id, res.Type)
		}
	}
	for _, a := range op.Aliases {
		if !memberName.MatchString(a.Key) {
			errs.add(line("aliases"), "alias %q is not a valid member name", a.Key)
		}
		if !slices.Contains(members, a.Value) {
			unknown("aliases", a.Value)
		}
	}
	for _, name := range op.Ignore {
		if slices.Contains(members, name) {
			errs.add(line("ignore"), "ignore: %q is a member of %s; ignoring it would drop what clients store", name, res.Type)
		}
	}
	for _, name := range op.Filters {
		if res.field(name) == nil {
			unknown("filters", name)
		}
	}
	for _, s := range spec.Set {
		f := res.field(s.Member)
		if f == nil || f.ReadOnly || f.IsID {
			unknown("set", s.Member)
			continue
		}
		lit, err := scalarJSON(s.Value)
		if err != nil || !literalFits(f.Kind, s.Value) {
			errs.add(s.Value.Line, "set: %s is %s; %q does not fit", s.Member, f.Kind, s.Value.Value)
			continue
		}
		op.Set = append(op.Set, pair{s.Member, lit})
	}
	if op.By != "" {
		f := res.field(op.By)
		if f == nil || f.Parent == nil {
			errs.add(line("by"), "by: %q is not a member of %s that names a parent", op.By, res.Type)
		} else {
			op.ByColumn = f.ColumnName
		}
	}
	if op.Wrapper != "" && !memberName.MatchString(op.Wrapper) {
		errs.add(line("wrapper"), "wrapper %q is not a valid member name", op.Wrapper)
	}
	if op.Secret && res.Secret == nil {
		errs.add(line("secret"), "secret: %s has no field annotated annotation.Secret to keep it", res.Type)
	}
	only("filters", "list")
	only("set", "action")
	only("by", "delete")
	only("optional_id", "upsert")
	only("secret", "upsert")
	only("wrapper", "create", "patch", "upsert", "get_or_create")
	if spec.Kind == "action" && len(spec.Set) == 0 {
		errs.add(spec.Line, "an action needs set: the members it writes")
	}
	if strings.Contains(spec.Route.Path, ":id") && (spec.Kind == "create") {
		errs.add(spec.Route.Line, "a create takes no :id in its path")
	}
	if spec.Envelope != nil {
		shape, err := parseEnvelope(spec.Envelope, op)
		if err != nil {
			errs.add(spec.Envelope.Line, "envelope: %v", err)
		} else {
			op.shape = shape
			op.Envelope = shape.compile(op)
			op.ETag = shape.Placeholder == "$record"
		}
	}
	return op
}

// literalFits tells whether a YAML scalar suits a member of kind.
func literalFits(kind string, n *yaml.Node) bool {
	switch kind {
	case "string":
		return n.Tag == "!!str"
	case "integer":
		return n.Tag == "!!int"
	case "number":
		return n.Tag == "!!int" || n.Tag == "!!float"
	case "boolean":
		return n.Tag == "!!bool"
	}
	return false
}

// genericOp is a generic route with its operation.
type genericOp struct {
	*opView
	route routeSpec
}

// genericOps are the routes every resource gets: list, create, get, patch
// and delete.
func genericOps(r *resourceView) []genericOp {
	words := strings.ReplaceAll(r.Object, "_", " ")
	plural := strings.ReplaceAll(r.Plural, "_", " ")
	base := "/v1/" + r.Plural
	mk := func(kind, name, method, path, envelope string) genericOp {
		op := &opView{
			Var:       "generic" + goName(name),
			Name:      name,
			Kind:      kind,
			KindConst: kindConst(kind),
			Resource:  r,
			IDMembers: []string{"id"},
			Generic:   true,
		}
		shape, err := namedEnvelope(envelope, op)
		if err != nil {
			panic(err) // the named envelopes suit their kinds
		}
		op.shape = shape
		op.Envelope = shape.compile(op)
		op.ETag = shape.Placeholder == "$record"
		return genericOp{op, routeSpec{Method: method, Path: path}}
	}
	return []genericOp{
		mk("list", "List "+plural, "GET", base, "list"),
		mk("create", "Create "+words, "POST", base, "plain"),
		mk("get", "Get "+words, "GET", base+"/:id", "plain"),
		mk("patch", "Patch "+words, "PATCH", base+"/:id", "plain"),
		mk("delete", "Delete "+words, "DELETE", base+"/:id", "deleted"),
	}
}

// envNode is an envelope's shape: an object, an array, a literal or a placeholder.
type envNode struct {
	Keys        []string // object: member names in order
	Values      []*envNode
	Items       []*envNode // array elements
	IsArray     bool
	IsObject    bool
	Literal     string // JSON text of a literal
	Placeholder string // e.g. "$record", "$record.name"
}

// placeholders and the kinds that have them.
var placeholders = map[string][]string{
	"$record":  {"get", "create", "patch", "upsert", "get_or_create"},
	"$records": {"list"},
	"$paging":  {"list"},
	"$id":      {"get", "create", "patch", "upsert", "get_or_create", "action", "delete"},
	"$created": {"create", "upsert", "get_or_create"},
	"$secret":  {"upsert"},
}

// placeholderNames are the placeholders, sorted, for messages.
var placeholderNames = slices.Sorted(maps.Keys(placeholders))

// namedEnvelopes are envelopes named instead of written out.
var namedEnvelopes = []string{"plain", "list", "deleted"}

func namedEnvelope(name string, op *opView) (*envNode, error) {
	lit := func(v any) *envNode {
		b, _ := json.Marshal(v)
		return &envNode{Literal: string(b)}
	}
	switch name {
	case "plain":
		return &envNode{Placeholder: "$record"}, checkPlaceholder("$record", op)
	case "list":
		n := &envNode{IsObject: true, Keys: []string{op.Resource.Plural, "paging"},
			Values: []*envNode{{Placeholder: "$records"}, {Placeholder: "$paging"}}}
		return n, checkPlaceholder("$records", op)
	case "deleted":
		n := &envNode{IsObject: true, Keys: []string{"id", "object", "success", "deleted"},
			Values: []*envNode{{Placeholder: "$id"}, lit(op.Resource.Object), lit(1), lit(true)}}
		return n, checkPlaceholder("$id", op)
	}
	return nil, fmt.Errorf("unknown envelope %q%s; valid: %s, or a mapping with placeholders (%s)",
		name, closest(name, namedEnvelopes), strings.Join(namedEnvelopes, ", "), strings.Join(placeholderNames, ", "))
}

// parseEnvelope reads an envelope: a name, or a template whose strings
// starting with $ are placeholders.
func parseEnvelope(n *yaml.Node, op *opView) (*envNode, error) {
	if n.Kind == yaml.ScalarNode && !strings.HasPrefix(n.Value, "$") {
		return namedEnvelope(n.Value, op)
	}
	shape, err := envelopeNode(n, op)
	if err != nil {
		return nil, err
	}
	if op.Kind == "list" && !shape.hasTop("$paging") {
		return nil, fmt.Errorf("a list's envelope needs paging: $paging at its top level")
	}
	if op.Kind == "list" && !shape.has("$records") {
		return nil, fmt.Errorf("a list's envelope needs $records")
	}
	return shape, nil
}

func envelopeNode(n *yaml.Node, op *opView) (*envNode, error) {
	switch n.Kind {
	case yaml.MappingNode:
		out := &envNode{IsObject: true}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := envelopeNode(n.Content[i+1], op)
			if err != nil {
				return nil, err
			}
			out.Keys = append(out.Keys, n.Content[i].Value)
			out.Values = append(out.Values, v)
		}
		return out, nil
	case yaml.SequenceNode:
		out := &envNode{IsArray: true}
		for _, c := range n.Content {
			v, err := envelopeNode(c, op)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, v)
		}
		return out, nil
	case yaml.ScalarNode:
		if n.Tag == "!!str" && strings.HasPrefix(n.Value, "$") {
			return &envNode{Placeholder: n.Value}, checkPlaceholder(n.Value, op)
		}
		lit, err := scalarJSON(n)
		return &envNode{Literal: lit}, err
	}
	return nil, fmt.Errorf("line %d: unsupported YAML", n.Line)
}

// checkPlaceholder fails for an unknown placeholder or one the kind lacks.
func checkPlaceholder(p string, op *opView) error {
	base, member, _ := strings.Cut(p, ".")
	kinds, ok := placeholders[base]
	switch {
	case !ok:
		return fmt.Errorf("unknown placeholder %s%s; valid: %s, $record.<member>", p, closest(p, placeholderNames), strings.Join(placeholderNames, ", "))
	case !slices.Contains(kinds, op.Kind):
		return fmt.Errorf("%s is not available for kind %s (only %s)", base, op.Kind, strings.Join(kinds, ", "))
	case base == "$secret" && !op.Secret:
		return fmt.Errorf("$secret needs secret: true")
	case member != "" && base != "$record":
		return fmt.Errorf("only $record has members, not %s", base)
	case member != "" && op.Resource.field(member) == nil:
		return fmt.Errorf("%s has no member %q%s", op.Resource.Type, member, closest(member, op.Resource.Members))
	}
	return nil
}

// scalarJSON converts a YAML scalar to JSON text.
func scalarJSON(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: want a single value", n.Line)
	}
	switch n.Tag {
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return "", err
		}
		return strconv.FormatInt(i, 10), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return "", err
		}
		b, err := json.Marshal(f)
		return string(b), err
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return "", err
		}
		return strconv.FormatBool(b), nil
	case "!!null":
		return "null", nil
	}
	b, err := json.Marshal(n.Value)
	return string(b), err
}

func (n *envNode) has(p string) bool {
	if n.Placeholder == p {
		return true
	}
	for _, c := range append(append([]*envNode(nil), n.Values...), n.Items...) {
		if c.has(p) {
			return true
		}
	}
	return false
}

func (n *envNode) hasTop(p string) bool {
	for _, v := range n.Values {
		if v.Placeholder == p {
			return true
		}
	}
	return false
}

// compile turns the shape into append steps, merging adjacent literals.
func (n *envNode) compile(op *opView) []envPart {
	var parts []envPart
	var lit strings.Builder // JSON text not yet emitted
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, envPart{Literal: lit.String()})
			lit.Reset()
		}
	}
	var walk func(n *envNode)
	walk = func(n *envNode) {
		switch {
		case n.IsObject:
			lit.WriteByte('{')
			for i, k := range n.Keys {
				if i > 0 {
					lit.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				lit.Write(kb)
				lit.WriteByte(':')
				walk(n.Values[i])
			}
			lit.WriteByte('}')
		case n.IsArray:
			lit.WriteByte('[')
			for i, c := range n.Items {
				if i > 0 {
					lit.WriteByte(',')
				}
				walk(c)
			}
			lit.WriteByte(']')
		case n.Placeholder != "":
			flush()
			parts = append(parts, placeholderPart(n.Placeholder, op))
		default:
			lit.WriteString(n.Literal)
		}
	}
	walk(n)
	flush()
	return parts
}

// placeholderPart is the part appending a placeholder's value.
func placeholderPart(p string, op *opView) envPart {
	base, member, _ := strings.Cut(p, ".")
	if base == "$record" && member != "" {
		return envPart{Field: op.Resource.field(member)}
	}
	switch base {
	case "$record", "$records", "$paging", "$id", "$created", "$secret":
		return envPart{Of: base[1:]}
	}
	panic("unchecked placeholder " + p)
}

// UsesWire tells whether the part's code calls package wire.
func (p envPart) UsesWire() bool { return p.Field != nil || p.Of == "id" }

// sortRoutes keeps the table's order, then the generic routes by path.
func sortRoutes(routes []*routeView) {
	sort.SliceStable(routes, func(i, j int) bool {
		a, b := routes[i], routes[j]
		if a.Op.Generic != b.Op.Generic {
			return !a.Op.Generic
		}
		if !a.Op.Generic {
			return false
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
}

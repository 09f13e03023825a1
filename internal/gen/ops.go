package gen

import (
	"regexp"
	"slices"
	"sort"
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

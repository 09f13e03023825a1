package gen

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"records/internal/spec"
)

// opView is one operation: an entry of the route table or a generic route.
type opView struct {
	Var        string // Go variable, e.g. "opUpdateReturn"
	Name       string
	Kind       spec.Kind
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
	for _, entry := range table.Ops {
		if line, dup := names[entry.Name]; dup {
			errs.add(entry.Line, "operation name %q is used at line %d too", entry.Name, line)
		}
		names[entry.Name] = entry.Line
		op := buildOp(entry, byType, typeNames, errs)
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
				rv.Successor = strings.ReplaceAll(entry.Route.Path, ":id", "{id}")
			}
			rv.NoID = strings.Contains(entry.Route.Path, ":id") && !strings.Contains(r.Path, ":id")
			m.Routes = append(m.Routes, rv)
		}
		add(entry.Route, false)
		for _, r := range entry.Also {
			add(r, false)
		}
		for _, r := range entry.Deprecated {
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

// buildOp makes the operation of one route-table entry, adding to errs what
// is wrong with it; nil when its kind or resource is unknown.
func buildOp(entry *opSpec, byType map[string]*resourceView, typeNames []string, errs *tableErrors) *opView {
	kind := spec.Kind(entry.Kind)
	if !slices.Contains(spec.Kinds, kind) {
		errs.add(entry.line("kind"), "unknown kind %q%s; valid: %s", entry.Kind, closest(entry.Kind, kinds), strings.Join(kinds, ", "))
		return nil
	}
	res := byType[entry.Resource]
	if res == nil {
		errs.add(entry.line("resource"), "unknown resource %q%s; valid: %s", entry.Resource, closest(entry.Resource, typeNames), strings.Join(typeNames, ", "))
		return nil
	}
	op := &opView{
		Var:        "op" + goName(entry.Name),
		Name:       entry.Name,
		Kind:       kind,
		Resource:   res,
		IDMembers:  entry.ID,
		Wrapper:    entry.Wrapper,
		Aliases:    entry.Aliases,
		Ignore:     entry.Ignore,
		Filters:    entry.Filters,
		By:         entry.By,
		OptionalID: entry.OptionalID,
		Secret:     entry.Secret,
	}
	if len(op.IDMembers) == 0 {
		op.IDMembers = []string{"id"}
	}
	checkNames(entry, op, errs)
	op.Set = setMembers(entry, res, errs)
	checkOptions(entry, op, errs)
	if entry.Envelope != nil {
		shape, err := parseEnvelope(entry.Envelope, op)
		if err != nil {
			errs.add(entry.Envelope.Line, "envelope: %v", err)
		} else {
			op.setEnvelope(shape)
		}
	}
	return op
}

// line is the line of the entry's key, or the entry's own when not given.
func (entry *opSpec) line(key string) int {
	if l, ok := entry.lines[key]; ok {
		return l
	}
	return entry.Line
}

// unknownMember adds the error of a key naming no writable member of res.
func unknownMember(entry *opSpec, res *resourceView, key, name string, errs *tableErrors) {
	errs.add(entry.line(key), "%s: %s has no writable member %q%s; valid: %s",
		key, res.Type, name, closest(name, res.Members), strings.Join(res.Members, ", "))
}

// checkNames checks what the entry names: its id members, aliases, ignored
// members, filters, the parent it deletes by and its wrapper.
func checkNames(entry *opSpec, op *opView, errs *tableErrors) {
	res, members := op.Resource, op.Resource.Members
	for _, id := range op.IDMembers {
		if !memberName.MatchString(id) {
			errs.add(entry.line("id"), "id member %q is not a valid member name", id)
		} else if id != "id" && slices.Contains(members, id) {
			errs.add(entry.line("id"), "id member %q is a member of %s; an id member must not be", id, res.Type)
		}
	}
	for _, a := range op.Aliases {
		if !memberName.MatchString(a.Key) {
			errs.add(entry.line("aliases"), "alias %q is not a valid member name", a.Key)
		}
		if !slices.Contains(members, a.Value) {
			unknownMember(entry, res, "aliases", a.Value, errs)
		}
	}
	for _, name := range op.Ignore {
		if slices.Contains(members, name) {
			errs.add(entry.line("ignore"), "ignore: %q is a member of %s; ignoring it would drop what clients store", name, res.Type)
		}
	}
	for _, name := range op.Filters {
		if res.field(name) == nil {
			unknownMember(entry, res, "filters", name, errs)
		}
	}
	if op.By != "" {
		f := res.field(op.By)
		if f == nil || f.Parent == nil {
			errs.add(entry.line("by"), "by: %q is not a member of %s that names a parent", op.By, res.Type)
		} else {
			op.ByColumn = f.ColumnName
		}
	}
	if op.Wrapper != "" && !memberName.MatchString(op.Wrapper) {
		errs.add(entry.line("wrapper"), "wrapper %q is not a valid member name", op.Wrapper)
	}
}

// setMembers are the members an action writes, as JSON literals.
func setMembers(entry *opSpec, res *resourceView, errs *tableErrors) []pair {
	var out []pair
	for _, s := range entry.Set {
		f := res.field(s.Member)
		if f == nil || f.ReadOnly || f.IsID {
			unknownMember(entry, res, "set", s.Member, errs)
			continue
		}
		lit, err := scalarJSON(s.Value)
		if err != nil || !literalFits(f.Kind, s.Value) {
			errs.add(s.Value.Line, "set: %s is %s; %q does not fit", s.Member, f.Kind, s.Value.Value)
			continue
		}
		if problem := f.refuses(lit); problem != "" {
			errs.add(s.Value.Line, "set: %s %s %s", s.Member, lit, problem)
			continue
		}
		out = append(out, pair{s.Member, lit})
	}
	return out
}

// optionKinds are the kinds each option of an entry applies to.
var optionKinds = []struct {
	key   string
	kinds []spec.Kind
}{
	{"filters", []spec.Kind{spec.List}},
	{"set", []spec.Kind{spec.Action}},
	{"by", []spec.Kind{spec.Delete}},
	{"optional_id", []spec.Kind{spec.Upsert}},
	{"secret", []spec.Kind{spec.Upsert}},
	{"wrapper", []spec.Kind{spec.Create, spec.Patch, spec.Upsert, spec.GetOrCreate}},
}

// checkOptions checks that the entry's options suit its kind.
func checkOptions(entry *opSpec, op *opView, errs *tableErrors) {
	if op.Secret && op.Resource.Secret == nil {
		errs.add(entry.line("secret"), "secret: %s has no field annotated annotation.Secret to keep it", op.Resource.Type)
	}
	for _, o := range optionKinds {
		if _, given := entry.lines[o.key]; given && !slices.Contains(o.kinds, op.Kind) {
			errs.add(entry.line(o.key), "%s applies only to kind %s, not %s", o.key, kindList(o.kinds, " or "), op.Kind)
		}
	}
	if op.Kind == spec.Action && len(entry.Set) == 0 {
		errs.add(entry.Line, "an action needs set: the members it writes")
	}
	if op.Kind == spec.Create && strings.Contains(entry.Route.Path, ":id") {
		errs.add(entry.Route.Line, "a create takes no :id in its path")
	}
}

// setEnvelope makes shape the operation's success body.
func (op *opView) setEnvelope(shape *envNode) {
	op.shape = shape
	op.Envelope = shape.compile(op)
	op.ETag = shape.Placeholder == "$record"
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
// and delete, and those of the trash and of history: restore and revert.
func genericOps(r *resourceView) []genericOp {
	words := strings.ReplaceAll(r.Object, "_", " ")
	plural := strings.ReplaceAll(r.Plural, "_", " ")
	base := "/v1/" + r.Plural
	mk := func(kind spec.Kind, name, method, path, envelope string) genericOp {
		op := &opView{
			Var:       "generic" + goName(name),
			Name:      name,
			Kind:      kind,
			Resource:  r,
			IDMembers: []string{"id"},
			Generic:   true,
		}
		shape, err := namedEnvelope(envelope, op)
		if err != nil {
			panic(err) // the named envelopes suit their kinds
		}
		op.setEnvelope(shape)
		return genericOp{op, routeSpec{Method: method, Path: path}}
	}
	return []genericOp{
		mk(spec.List, "List "+plural, "GET", base, "list"),
		mk(spec.Create, "Create "+words, "POST", base, "plain"),
		mk(spec.Get, "Get "+words, "GET", base+"/:id", "plain"),
		mk(spec.Patch, "Patch "+words, "PATCH", base+"/:id", "plain"),
		mk(spec.Delete, "Delete "+words, "DELETE", base+"/:id", "deleted"),
		mk(spec.Restore, "Restore "+words, "POST", base+"/:id/restore", "plain"),
		mk(spec.Revert, "Revert "+words, "POST", base+"/:id/revert", "plain"),
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

package gen

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"records/internal/suggest"
)

// routeTable is the parsed route table (schema/routes.yaml): one entry per
// operation of the contract. The generic routes of every resource are not
// listed; the generator adds them.
type routeTable struct {
	File string
	Ops  []*opSpec
}

// opSpec is one entry of the route table, as written.
type opSpec struct {
	Line       int
	Name       string
	Kind       string
	Resource   string
	Route      routeSpec
	Also       []routeSpec
	Deprecated []routeSpec
	ID         []string
	Wrapper    string
	Aliases    []pair // in file order
	Ignore     []string
	Filters    []string
	Set        []setSpec
	By         string
	OptionalID bool
	Secret     bool
	Envelope   *yaml.Node
	lines      map[string]int // line of each key, for messages
}

// routeSpec is "METHOD /path".
type routeSpec struct {
	Line   int
	Method string
	Path   string
}

func (r routeSpec) String() string { return r.Method + " " + r.Path }

type pair struct{ Key, Value string }

// setSpec is one member an action writes, with its value as a YAML node.
type setSpec struct {
	Member string
	Value  *yaml.Node
}

// opFields are the keys an entry may have.
var opFields = []string{"name", "kind", "resource", "route", "also", "deprecated", "id", "wrapper",
	"aliases", "ignore", "filters", "set", "by", "optional_id", "secret", "envelope"}

// tableErrors collects the route table's mistakes, each with its line.
type tableErrors struct {
	file string
	list []string
}

func (e *tableErrors) add(line int, format string, args ...any) {
	e.list = append(e.list, fmt.Sprintf("%s:%d: %s", e.file, line, fmt.Sprintf(format, args...)))
}

func (e *tableErrors) err() error {
	if len(e.list) == 0 {
		return nil
	}
	return errors.New("the route table has mistakes; nothing was written:\n  " + strings.Join(e.list, "\n  "))
}

// readRouteTable reads and parses the configuration's route table.
func readRouteTable(cfg Config) (*routeTable, error) {
	data, err := os.ReadFile(cfg.path(cfg.RouteTable))
	if err != nil {
		return nil, fmt.Errorf("reading the route table: %w", err)
	}
	return parseRouteTable(cfg.RouteTable, data)
}

// parseRouteTable parses the table's syntax; checking it against the
// schema is validate's job.
func parseRouteTable(file string, data []byte) (*routeTable, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	errs := &tableErrors{file: file}
	t := &routeTable{File: file}
	if len(doc.Content) == 0 {
		errs.add(1, "the table is empty; it needs a list named operations")
		return nil, errs.err()
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		errs.add(root.Line, "the table must be a mapping with the key operations")
		return nil, errs.err()
	}
	var ops *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "operations" {
			errs.add(k.Line, "unknown key %q; the table has only operations", k.Value)
			continue
		}
		ops = v
	}
	if ops == nil || ops.Kind != yaml.SequenceNode {
		errs.add(root.Line, "operations must be a list of entries")
		return nil, errs.err()
	}
	for _, item := range ops.Content {
		if op := parseOp(item, errs); op != nil {
			t.Ops = append(t.Ops, op)
		}
	}
	return t, errs.err()
}

func parseOp(n *yaml.Node, errs *tableErrors) *opSpec {
	if n.Kind != yaml.MappingNode {
		errs.add(n.Line, "an operation must be a mapping of %s", strings.Join(opFields, ", "))
		return nil
	}
	op := &opSpec{Line: n.Line, lines: map[string]int{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		op.lines[k.Value] = k.Line
		switch k.Value {
		case "name":
			op.Name = scalar(v, k.Value, errs)
		case "kind":
			op.Kind = scalar(v, k.Value, errs)
		case "resource":
			op.Resource = scalar(v, k.Value, errs)
		case "route":
			op.Route = parseRoute(v, errs)
		case "also":
			op.Also = parseRoutes(v, k.Value, errs)
		case "deprecated":
			op.Deprecated = parseRoutes(v, k.Value, errs)
		case "id":
			op.ID = scalars(v, k.Value, errs)
		case "wrapper":
			op.Wrapper = scalar(v, k.Value, errs)
		case "aliases":
			op.Aliases = pairs(v, k.Value, errs)
		case "ignore":
			op.Ignore = scalars(v, k.Value, errs)
		case "filters":
			op.Filters = scalars(v, k.Value, errs)
		case "set":
			if v.Kind != yaml.MappingNode {
				errs.add(v.Line, "set must be a mapping of member: value")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				op.Set = append(op.Set, setSpec{Member: v.Content[j].Value, Value: v.Content[j+1]})
			}
		case "by":
			op.By = scalar(v, k.Value, errs)
		case "optional_id":
			op.OptionalID = boolean(v, k.Value, errs)
		case "secret":
			op.Secret = boolean(v, k.Value, errs)
		case "envelope":
			op.Envelope = v
		default:
			errs.add(k.Line, "unknown field %q%s; an operation has %s", k.Value, closest(k.Value, opFields), strings.Join(opFields, ", "))
		}
	}
	for _, required := range []string{"name", "kind", "resource", "route", "envelope"} {
		if _, ok := op.lines[required]; !ok {
			errs.add(op.Line, "operation %q lacks %s", op.Name, required)
		}
	}
	return op
}

func scalar(n *yaml.Node, key string, errs *tableErrors) string {
	if n.Kind != yaml.ScalarNode {
		errs.add(n.Line, "%s must be a single value", key)
		return ""
	}
	return n.Value
}

func scalars(n *yaml.Node, key string, errs *tableErrors) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		errs.add(n.Line, "%s must be a list of names", key)
		return nil
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, scalar(c, key, errs))
	}
	return out
}

func boolean(n *yaml.Node, key string, errs *tableErrors) bool {
	switch scalar(n, key, errs) {
	case "true":
		return true
	case "false":
		return false
	}
	errs.add(n.Line, "%s must be true or false", key)
	return false
}

func pairs(n *yaml.Node, key string, errs *tableErrors) []pair {
	if n.Kind != yaml.MappingNode {
		errs.add(n.Line, "%s must be a mapping of accepted name: member", key)
		return nil
	}
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, pair{n.Content[i].Value, scalar(n.Content[i+1], key, errs)})
	}
	return out
}

// methods are the HTTP methods a route may have.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// pathPattern: /v1 and segments of letters, digits and _, or the parameter :id.
var pathPattern = regexp.MustCompile(`^/v1(/([a-z0-9_]+|:id))*/?$`)

func parseRoute(n *yaml.Node, errs *tableErrors) routeSpec {
	s := scalar(n, "route", errs)
	r := routeSpec{Line: n.Line}
	method, p, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		errs.add(n.Line, "route %q must be \"METHOD /path\"", s)
		return r
	}
	r.Method, r.Path = method, strings.TrimSpace(p)
	if !slices.Contains(methods, r.Method) {
		errs.add(n.Line, "unknown method %q; valid: %s", r.Method, strings.Join(methods, ", "))
	}
	if !pathPattern.MatchString(r.Path) {
		errs.add(n.Line, "path %q must start with /v1 and hold only lower-case segments and :id", r.Path)
	}
	return r
}

func parseRoutes(n *yaml.Node, key string, errs *tableErrors) []routeSpec {
	if n.Kind != yaml.SequenceNode {
		errs.add(n.Line, "%s must be a list of routes", key)
		return nil
	}
	var out []routeSpec
	for _, c := range n.Content {
		out = append(out, parseRoute(c, errs))
	}
	return out
}

// closest returns ` (did you mean "x"?)` for the choice closest to s, when close.
func closest(s string, choices []string) string {
	if hint := suggest.DidYouMean(s, choices); hint != "" {
		return " (" + hint + ")"
	}
	return ""
}

package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"records/internal/suggest"
	"records/internal/wire"
)

// Errors are the mistakes of a policies file, each "file:line: what".
type Errors []string

func (e Errors) Error() string { return strings.Join(e, "\n") }

// errs collects a file's mistakes.
type errs struct {
	file string
	list Errors
}

func (e *errs) add(line int, format string, args ...any) {
	e.list = append(e.list, fmt.Sprintf("%s:%d: %s", e.file, line, fmt.Sprintf(format, args...)))
}

func (e *errs) err() error {
	if len(e.list) == 0 {
		return nil
	}
	return e.list
}

// ruleKeys are the keys a rule may have, by operation.
var ruleKeys = map[Op][]string{
	Read:    {"filter", "members"},
	Create:  {"members", "presets", "check"},
	Update:  {"filter", "members", "check"},
	Delete:  {"filter"},
	Restore: {"filter"},
}

// Parse reads a policies file (named file in messages). It checks the
// file's shape; Check checks it against the resources.
//
//	roles:
//	  agent:
//	    cases:
//	      read: {filter: {resolver: "$auth.sub"}, members: [id, caseName]}
func Parse(file string, data []byte) (*Policies, error) {
	e := &errs{file: file}
	p := &Policies{File: file, Roles: map[string]*Role{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml's messages carry "line N:"; keep the file's name in front.
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if n, after, ok := strings.Cut(rest, ":"); ok {
				if l, err := strconv.Atoi(n); err == nil {
					line, msg = l, strings.TrimSpace(after)
				}
			}
		}
		e.add(line, "%s", msg)
		return nil, e.err()
	}
	if len(doc.Content) == 0 {
		return p, nil // an empty file declares no role
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		e.add(root.Line, "the file must be a mapping with the key roles")
		return nil, e.err()
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "roles" {
			e.add(k.Line, "unknown key %q; the file has only roles", k.Value)
			continue
		}
		if v.Kind != yaml.MappingNode {
			if v.Tag != "!!null" {
				e.add(v.Line, "roles must be a mapping of role name to its resources")
			}
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			name, body := v.Content[j], v.Content[j+1]
			switch {
			case name.Value == Admin:
				e.add(name.Line, "admin is built in and may do everything; it takes no policies")
				continue
			case !ValidName(name.Value):
				e.add(name.Line, "role %q: a role's name is letters, digits, _ and - (at most 64)", name.Value)
				continue
			case p.Roles[name.Value] != nil:
				e.add(name.Line, "role %q is declared at line %d too", name.Value, p.Roles[name.Value].Line)
				continue
			}
			p.Roles[name.Value] = parseRole(name, body, e)
		}
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// ValidName tells whether s may name a role: letters, digits, _, - and .,
// at most 64 (what a Records-Role header can carry).
func ValidName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func parseRole(name, body *yaml.Node, e *errs) *Role {
	r := &Role{Name: name.Value, Line: name.Line, Resources: map[string]map[Op]*Rule{}, lines: map[string]int{}}
	if body.Kind != yaml.MappingNode {
		if body.Tag != "!!null" {
			e.add(body.Line, "role %q must be a mapping of resource (or \"*\") to operations", name.Value)
		}
		return r
	}
	for i := 0; i+1 < len(body.Content); i += 2 {
		res, ops := body.Content[i], body.Content[i+1]
		if _, dup := r.Resources[res.Value]; dup {
			e.add(res.Line, "resource %q is given twice in role %q", res.Value, name.Value)
			continue
		}
		rules := map[Op]*Rule{}
		r.Resources[res.Value] = rules
		r.lines[res.Value] = res.Line
		if ops.Kind != yaml.MappingNode {
			if ops.Tag != "!!null" {
				e.add(ops.Line, "%s must be a mapping of operation (%s) to its rule", res.Value, opNames())
			}
			continue
		}
		for j := 0; j+1 < len(ops.Content); j += 2 {
			k, v := ops.Content[j], ops.Content[j+1]
			op := Op(k.Value)
			if !slices.Contains(Ops, op) {
				e.add(k.Line, "unknown operation %q%s; valid: %s", k.Value, hint(k.Value, opStrings()), opNames())
				continue
			}
			if _, dup := rules[op]; dup {
				e.add(k.Line, "operation %s is given twice", op)
				continue
			}
			rules[op] = parseRule(op, k, v, e)
		}
	}
	return r
}

func opStrings() []string {
	out := make([]string, len(Ops))
	for i, op := range Ops {
		out[i] = string(op)
	}
	return out
}

func opNames() string { return strings.Join(opStrings(), ", ") }

func parseRule(op Op, k, v *yaml.Node, e *errs) *Rule {
	rule := &Rule{Line: k.Line}
	if v.Kind != yaml.MappingNode {
		if v.Tag != "!!null" {
			e.add(v.Line, "%s must be a mapping of %s ({} for no limit)", op, strings.Join(ruleKeys[op], ", "))
		}
		return rule
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]
		if !slices.Contains(ruleKeys[op], key.Value) {
			e.add(key.Line, "%s takes no %q; it takes %s", op, key.Value, strings.Join(ruleKeys[op], ", "))
			continue
		}
		switch key.Value {
		case "filter", "check":
			if val.Kind != yaml.MappingNode {
				e.add(val.Line, "%s must be a filter object: member: value, member: {operator: value}, and/or/not", key.Value)
				continue
			}
			t := newTemplate(key.Value, val, e)
			if key.Value == "filter" {
				rule.Filter = t
			} else {
				rule.Check = t
			}
		case "members":
			if val.Kind != yaml.SequenceNode {
				e.add(val.Line, "members must be a list of member names")
				continue
			}
			rule.Members = []string{}
			for _, m := range val.Content {
				if m.Kind != yaml.ScalarNode || m.Value == "" {
					e.add(m.Line, "members must be a list of member names")
					continue
				}
				rule.Members = append(rule.Members, m.Value)
			}
		case "presets":
			if val.Kind != yaml.MappingNode {
				e.add(val.Line, "presets must be a mapping of member: value")
				continue
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				m, pv := val.Content[j], val.Content[j+1]
				if pv.Kind != yaml.ScalarNode {
					e.add(pv.Line, "preset %s must be one value", m.Value)
					continue
				}
				rule.Presets = append(rule.Presets, Preset{Member: m.Value, Value: newTemplate(m.Value, pv, e), Line: m.Line})
			}
		}
	}
	return rule
}

// newTemplate turns the YAML value n, at path root, into a template.
func newTemplate(root string, n *yaml.Node, e *errs) *Template {
	t := &Template{lines: map[string]int{}, root: root, Line: n.Line}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			t.parts = append(t.parts, part{text: text.String()})
			text.Reset()
		}
	}
	var walk func(n *yaml.Node, path, member string, list bool)
	walk = func(n *yaml.Node, path, member string, list bool) {
		t.lines[path] = n.Line
		switch n.Kind {
		case yaml.AliasNode:
			e.add(n.Line, "aliases (*name) are not taken here; write the value")
			text.WriteString("null")
		case yaml.MappingNode:
			text.WriteByte('{')
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if i > 0 {
					text.WriteByte(',')
				}
				text.Write(wire.AppendString(nil, k.Value))
				text.WriteByte(':')
				m := member
				if !isOperator(k.Value) {
					m = k.Value
				}
				t.lines[path+"."+k.Value] = k.Line
				walk(v, path+"."+k.Value, m, k.Value == "in" || k.Value == "nin")
			}
			text.WriteByte('}')
		case yaml.SequenceNode:
			text.WriteByte('[')
			for i, item := range n.Content {
				if i > 0 {
					text.WriteByte(',')
				}
				walk(item, path+"["+strconv.Itoa(i)+"]", member, false)
			}
			text.WriteByte(']')
		case yaml.ScalarNode:
			switch {
			case n.Tag == "!!str" && strings.HasPrefix(n.Value, "$auth."):
				if !isVariable(n.Value) {
					e.add(n.Line, "unknown variable %q; valid: %s, $auth.claims.NAME", n.Value, strings.Join(variables, ", "))
				}
				flush()
				t.parts = append(t.parts, part{hole: &hole{variable: n.Value, member: member, list: list}})
			case n.Tag == "!!str" || n.Tag == "!!timestamp" || n.Tag == "!!binary":
				text.Write(wire.AppendString(nil, n.Value))
			case n.Tag == "!!int" || n.Tag == "!!float":
				num, ok := number(n.Value)
				if !ok {
					e.add(n.Line, "%q: write numbers in decimal", n.Value)
					num = "null"
				}
				text.WriteString(num)
			case n.Tag == "!!bool":
				var b bool
				if err := n.Decode(&b); err != nil {
					e.add(n.Line, "%q is not a boolean", n.Value)
				}
				text.WriteString(strconv.FormatBool(b))
			case n.Tag == "!!null":
				text.WriteString("null")
			default:
				e.add(n.Line, "a value of type %s is not taken here", n.Tag)
				text.WriteString("null")
			}
		}
	}
	walk(n, root, "", false)
	flush()
	return t
}

// isOperator tells whether a filter key is an operator or a connective,
// not a member.
func isOperator(k string) bool {
	switch k {
	case "eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "prefix", "is_null", "and", "or", "not":
		return true
	}
	return false
}

// number is a YAML number as JSON writes it; false for what JSON cannot
// hold (hexadecimal, infinities).
func number(s string) (string, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(s, "xXoObB_") {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// hint is "; did you mean X?" for a name close to one of choices, else "".
func hint(name string, choices []string) string {
	if s := suggest.DidYouMean(name, choices); s != "" {
		return "; " + s
	}
	return ""
}

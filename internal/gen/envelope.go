package gen

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"records/internal/spec"
)

// envPart is a piece of an envelope: literal JSON text, or a placeholder's
// value: a member of the record (Field), or the placeholder Of names
// ("record", "records", "paging", "id", "created" or "secret").
type envPart struct {
	Literal string
	Field   *fieldView
	Of      string
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
var placeholders = map[string][]spec.Kind{
	"$record":  {spec.Get, spec.Create, spec.Patch, spec.Upsert, spec.GetOrCreate, spec.Restore, spec.Revert},
	"$records": {spec.List},
	"$paging":  {spec.List},
	"$id":      {spec.Get, spec.Create, spec.Patch, spec.Upsert, spec.GetOrCreate, spec.Action, spec.Delete, spec.Restore, spec.Revert},
	"$created": {spec.Create, spec.Upsert, spec.GetOrCreate},
	"$secret":  {spec.Upsert},
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
	if op.Kind == spec.List && !shape.hasTop("$paging") {
		return nil, fmt.Errorf("a list's envelope needs paging: $paging at its top level")
	}
	if op.Kind == spec.List && !shape.has("$records") {
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
		return fmt.Errorf("%s is not available for kind %s (only %s)", base, op.Kind, kindList(kinds, ", "))
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

package policy

import (
	"maps"
	"slices"
	"strings"

	"records/internal/query"
	"records/internal/spec"

	"records/internal/wire"
)

// Member is a member of a resource, as Check needs to know it.
type Member struct {
	Name string
	Type spec.Type
}

// Catalog is every resource by plural, with its members.
type Catalog map[string][]Member

// Check checks the policies against the resources: every resource, member
// and operator they name must exist, and every value fit its member's
// type. Every mistake is reported, as file:line.
func (p *Policies) Check(cat Catalog) error {
	e := &errs{file: p.File}
	plurals := slices.Sorted(maps.Keys(cat))
	for _, name := range p.Names() {
		role := p.Roles[name]
		for _, res := range slices.Sorted(maps.Keys(role.Resources)) {
			line := role.lines[res]
			var members [][]Member
			if res == Every {
				for _, pl := range plurals {
					members = append(members, cat[pl])
				}
			} else if ms, ok := cat[res]; ok {
				members = [][]Member{ms}
			} else {
				e.add(line, "role %q: no resource %q%s; valid: \"*\", %s", name, res, hint(res, plurals), strings.Join(plurals, ", "))
				continue
			}
			for _, op := range Ops {
				rule, ok := role.Resources[res][op]
				if !ok {
					continue
				}
				// Under "*", every resource must have what the rule
				// names; the first that lacks it is reported.
				for i, ms := range members {
					one := &errs{file: e.file}
					at := res
					if res == Every {
						at = `"*" (` + plurals[i] + `)`
					}
					checkRule(one, at, op, rule, ms)
					e.list = append(e.list, one.list...)
					if len(one.list) > 0 {
						break
					}
				}
			}
		}
	}
	return e.err()
}

func checkRule(e *errs, res string, op Op, rule *Rule, ms []Member) {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	if rule.Members != nil {
		for _, m := range rule.Members {
			if !slices.Contains(names, m) {
				e.add(rule.Line, "%s %s: no member %q%s", res, op, m, hint(m, names))
			}
		}
	}
	cols := Columns(ms)
	for _, t := range []*Template{rule.Filter, rule.Check} {
		if t != nil {
			checkFilter(e, t, cols)
		}
	}
	for _, pre := range rule.Presets {
		if !slices.Contains(names, pre.Member) {
			e.add(pre.Line, "%s %s: no member %q to preset%s", res, op, pre.Member, hint(pre.Member, names))
			continue
		}
		col, ok := cols[pre.Member]
		if !ok {
			e.add(pre.Line, "%s %s: %s cannot be preset (its type is %s)", res, op, pre.Member, memberType(ms, pre.Member))
			continue
		}
		raw, _ := pre.Value.render(sample(cols))
		if wire.IsNull(raw) {
			continue
		}
		if _, err := col.Parse(raw); err != nil {
			e.add(pre.Line, "%s %s: preset %s: %v", res, op, pre.Member, err)
		}
	}
}

func memberType(ms []Member, name string) spec.Type {
	for _, m := range ms {
		if m.Name == name {
			return m.Type
		}
	}
	return ""
}

// checkFilter parses t as a list's filter would be, each variable replaced
// by a value of its member's type, and reports its problems at their lines.
func checkFilter(e *errs, t *Template, cols query.Columns) {
	raw, _ := t.render(sample(cols))
	_, problems := query.ParseFilter(raw, t.root, cols)
	for _, p := range problems {
		e.add(t.line(p.Member), "%s: %s", p.Member, p.Problem)
	}
}

// sample answers, for a hole, a value of its member's type (a list of one
// for in and nin), so that only what the file wrote is checked.
func sample(cols query.Columns) func(*hole) ([]byte, bool) {
	return func(h *hole) ([]byte, bool) {
		v := []byte(`"x"`)
		if c, ok := cols[h.member]; ok {
			v = sampleOf(c.Type)
		}
		if h.list {
			v = append(append([]byte{'['}, v...), ']')
		}
		return v, true
	}
}

func sampleOf(t spec.Type) []byte {
	switch t {
	case spec.Integer, spec.Number:
		return []byte("0")
	case spec.Boolean:
		return []byte("true")
	case spec.Date:
		return []byte(`"2000-01-01"`)
	case spec.DateTime:
		return []byte(`"2000-01-01T00:00:00Z"`)
	}
	return []byte(`"x"`)
}

// Columns are the members a filter may name, as a list's filter knows
// them (the generator has no generated descriptors to ask).
func Columns(ms []Member) query.Columns {
	cols := query.Columns{}
	for _, m := range ms {
		if !m.Type.Filterable() {
			continue
		}
		if m.Name == "id" {
			cols[m.Name] = query.IDColumn
			continue
		}
		cols[m.Name] = &query.Column{Member: m.Name, Name: m.Name, Type: m.Type, Parse: parser(m.Type)}
	}
	return cols
}

// parser reads a value of type t as a list's filter does.
func parser(t spec.Type) func([]byte) (any, error) {
	switch t {
	case spec.Integer:
		return func(v []byte) (any, error) { return wire.Int64(v) }
	case spec.Number:
		return func(v []byte) (any, error) { return wire.Float64(v) }
	case spec.Boolean:
		return func(v []byte) (any, error) { return wire.Bool(v) }
	case spec.Date:
		return func(v []byte) (any, error) { return wire.Date(v) }
	case spec.DateTime:
		return func(v []byte) (any, error) { return wire.DateTime(v) }
	}
	return func(v []byte) (any, error) { return wire.String(v) }
}

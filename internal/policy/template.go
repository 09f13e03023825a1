package policy

import (
	"strings"

	"records/internal/wire"
)

// Template is JSON text with holes where the file wrote a variable: a
// filter, a check, a preset's value. Filling the holes with a caller's
// values gives the JSON a list's filter would be.
type Template struct {
	parts []part
	// lines maps the path of each member and item, as the filter parser
	// names them ("filter.or[0].status"), to its line in the file.
	lines map[string]int
	root  string // the path of the template itself: "filter", "check", the preset's member
	Line  int
}

// part is literal JSON text, or a hole.
type part struct {
	text string
	hole *hole
}

// hole is a variable, where it stands: under which member, and whether as
// one of an in or nin list's values or as the list itself.
type hole struct {
	variable string
	member   string
	list     bool // the value of in or nin
}

// Variables are the variables the template uses, in order.
func (t *Template) Variables() []string {
	var out []string
	for _, p := range t.parts {
		if p.hole != nil {
			out = append(out, p.hole.variable)
		}
	}
	return out
}

// Fill renders the template with the caller's values. missing is the
// first variable the caller has no value for (a claim its token lacks),
// and then the text is not to be used.
func (t *Template) Fill(v *Vars) (text []byte, missing string) {
	return t.render(func(h *hole) ([]byte, bool) { return v.value(h.variable) })
}

// render fills each hole with what value answers.
func (t *Template) render(value func(*hole) ([]byte, bool)) ([]byte, string) {
	var b []byte
	for _, p := range t.parts {
		if p.hole == nil {
			b = append(b, p.text...)
			continue
		}
		v, ok := value(p.hole)
		if !ok {
			return nil, p.hole.variable
		}
		b = append(b, v...)
	}
	return b, ""
}

// value is the JSON value of a variable; false when the caller has none.
func (v *Vars) value(name string) ([]byte, bool) {
	switch name {
	case "$auth.sub":
		return wire.AppendString(nil, v.Sub), true
	case "$auth.team":
		return wire.AppendString(nil, v.Team), true
	case "$auth.role":
		return wire.AppendString(nil, v.Role), true
	}
	claim, _ := strings.CutPrefix(name, claimsPrefix)
	raw, ok := v.Claims[claim]
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// line is the line of the member or item at path, or of the nearest that
// encloses it.
func (t *Template) line(path string) int {
	for {
		if l, ok := t.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return t.Line
		}
		path = path[:i]
	}
}

package gen

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"entgo.io/ent/entc/gen"

	"records/internal/gen/probe"
)

// applyOptions gives the member what ent's field options say of it (DESIGN
// §14): its enum values, bounds, patterns, default, immutability,
// sensitivity, comment and uniqueness. An option the API cannot honour is
// an error naming it; the caller adds the field's position.
func applyOptions(v *fieldView, f *gen.Field, bounds probe.Field) error {
	v.Comment = strings.TrimSpace(f.Comment())
	v.Unique = f.Unique
	v.Immutable = f.Immutable && !v.ReadOnly
	v.Sensitive = f.Sensitive()
	if f.IsEnum() {
		v.Enum = f.EnumValues()
	}
	if len(bounds.Unsupported) > 0 {
		return fmt.Errorf("field %s: the validator %s is not supported by the API generator: it cannot be stated "+
			"in the OpenAPI document nor checked before the database; use ent's MinLen, MaxLen, Match, Min, Max, "+
			"Range, Positive or NonNegative, or write the rule in Go in rules/", f.Name, strings.Join(bounds.Unsupported, ", "))
	}
	switch v.Kind {
	case "string":
		if bounds.MinLen != nil {
			v.MinLen = *bounds.MinLen
		}
		if bounds.MaxLen != nil {
			v.MaxLen = *bounds.MaxLen
		}
		for _, p := range bounds.Patterns {
			if _, err := regexp.Compile(p); err != nil {
				return fmt.Errorf("field %s: pattern %q: %w", f.Name, p, err)
			}
		}
		v.Patterns = bounds.Patterns
	case "integer", "number":
		v.Min, v.Max = bounds.Min, bounds.Max
		if v.Kind == "integer" {
			for _, b := range []string{v.Min, v.Max} {
				if _, err := strconv.ParseInt(b, 10, 64); b != "" && err != nil {
					return fmt.Errorf("field %s: bound %s is not a whole number", f.Name, b)
				}
			}
		}
	}
	if v.Stamp != "" {
		// The server stamps it (its Default and UpdateDefault are the
		// clock's, for writes through ent).
		return nil
	}
	if f.UpdateDefault {
		return fmt.Errorf("field %s: UpdateDefault is not supported by the API generator; "+
			"a member the server stamps on every write is annotation.UpdateStamp, any other is a before-write rule in rules/", f.Name)
	}
	if f.Default && !v.ReadOnly {
		if err := setDefault(v, f); err != nil {
			return err
		}
	}
	if f.IsDeprecated() {
		return fmt.Errorf("field %s: Deprecated is not supported by the API generator: "+
			"a member clients should stop using is removed with --allow-breaking", f.Name)
	}
	return nil
}

// setDefault makes the field's default a Go literal of its value, checked
// against the member's own rule.
func setDefault(v *fieldView, f *gen.Field) error {
	if f.DefaultFunc() {
		return fmt.Errorf("field %s: a Default function is not supported by the API generator: "+
			"the OpenAPI document could not state the value; use a literal Default, or set it in a before-write rule in rules/", f.Name)
	}
	d := f.DefaultValue()
	js, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("field %s: default %v: %w", f.Name, d, err)
	}
	v.DefaultJS = string(js)
	switch x := d.(type) {
	case string:
		if v.Kind != "string" {
			return fmt.Errorf("field %s: a default of %s is not supported by the API generator", f.Name, v.Kind)
		}
		v.Default = strconv.Quote(x)
	case bool:
		v.Default = strconv.FormatBool(x)
	case int64, int, uint64, float64:
		n, _ := strconv.ParseFloat(fmt.Sprint(x), 64)
		switch v.Kind {
		case "integer":
			if n != math.Trunc(n) {
				return fmt.Errorf("field %s: default %v is not a whole number", f.Name, x)
			}
			v.Default = "int64(" + fmt.Sprint(x) + ")"
		case "number":
			v.Default = "float64(" + strconv.FormatFloat(n, 'g', -1, 64) + ")"
		default:
			return fmt.Errorf("field %s: default %v does not fit a %s member", f.Name, x, v.Kind)
		}
	default:
		return fmt.Errorf("field %s: a default of type %T is not supported by the API generator", f.Name, d)
	}
	if problem := v.refuses(v.DefaultJS); problem != "" {
		return fmt.Errorf("field %s: its default %s %s", f.Name, v.DefaultJS, problem)
	}
	return nil
}

// refuses says what is wrong with the JSON literal as a value of the member
// by its rule ("" when it fits): a default, or a value an action sets.
func (v *fieldView) refuses(literal string) string {
	var x any
	if err := json.Unmarshal([]byte(literal), &x); err != nil {
		return "is not JSON"
	}
	if x == nil {
		if v.Required {
			return "is null, and the member is required"
		}
		return ""
	}
	switch val := x.(type) {
	case string:
		if v.Enum != nil && !containsString(v.Enum, val) {
			return "is not one of " + strings.Join(v.Enum, ", ")
		}
		n := len([]rune(val))
		if n < v.MinLen || (v.MaxLen > 0 && n > v.MaxLen) {
			return fmt.Sprintf("has %d characters, out of the member's bounds", n)
		}
		for _, p := range v.Patterns {
			if !regexp.MustCompile(p).MatchString(val) {
				return "does not match " + p
			}
		}
	case float64:
		if lo, err := strconv.ParseFloat(v.Min, 64); err == nil && val < lo {
			return "is below the member's minimum " + v.Min
		}
		if hi, err := strconv.ParseFloat(v.Max, 64); err == nil && val > hi {
			return "is above the member's maximum " + v.Max
		}
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RuleDecl is the Go expression of the member's rule, as engine checks it,
// or "" when it has none but its type's.
func (v *fieldView) RuleDecl() string {
	switch v.Kind {
	case "string":
		if !v.Required && v.MinLen == 0 && v.MaxLen == 0 && len(v.Patterns) == 0 && v.Enum == nil {
			return ""
		}
		var parts []string
		if v.Required {
			parts = append(parts, "Required: true")
		}
		if v.MinLen > 0 {
			parts = append(parts, "MinLen: "+strconv.Itoa(v.MinLen))
		}
		if v.MaxLen > 0 {
			parts = append(parts, "MaxLen: "+strconv.Itoa(v.MaxLen))
		}
		if len(v.Patterns) > 0 {
			res := make([]string, len(v.Patterns))
			for i, p := range v.Patterns {
				res[i] = "regexp.MustCompile(" + goText(p) + ")"
			}
			parts = append(parts, "Patterns: []*regexp.Regexp{"+strings.Join(res, ", ")+"}")
		}
		if v.Enum != nil {
			vals := make([]string, len(v.Enum))
			for i, e := range v.Enum {
				vals[i] = strconv.Quote(e)
			}
			parts = append(parts, "Enum: []string{"+strings.Join(vals, ", ")+"}")
		}
		return "engine.Text{" + strings.Join(parts, ", ") + "}"
	case "integer", "number":
		if !v.Required && v.Min == "" && v.Max == "" {
			return ""
		}
		var parts []string
		if v.Required {
			parts = append(parts, "Required: true")
		}
		if v.Min != "" {
			parts = append(parts, "Min: "+v.Min, "HasMin: true")
		}
		if v.Max != "" {
			parts = append(parts, "Max: "+v.Max, "HasMax: true")
		}
		return "engine.Number[" + v.GoType + "]{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// RuleCheck is the Go statement's expression checking a decoded member of
// input in: its rule's Check, NotNull for another required member, or ""
// when nothing is checked beyond its type.
func (v *fieldView) RuleCheck(in string) string {
	switch {
	case v.RuleVar != "":
		return v.RuleVar + ".Check(&" + in + "." + v.GoName + ")"
	case v.Required:
		return "engine.NotNull(&" + in + "." + v.GoName + ")"
	}
	return ""
}

// UsesRegexp tells whether the member's rule compiles a pattern.
func (v *fieldView) UsesRegexp() bool { return v.Kind == "string" && len(v.Patterns) > 0 }

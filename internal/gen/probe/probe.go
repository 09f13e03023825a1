// Package probe reads what ent's field options say that ent's graph does
// not carry: the bounds and patterns its validators enforce (MinLen,
// MaxLen, Match, Min, Max, Range, Positive, NonNegative…). ent keeps those
// only as functions in the fields' descriptors, so the generator runs a
// small program (Program) that imports the schema package and describes
// each schema's fields from their descriptors.
//
// A validator is known by the ent builder method that made it (its
// function's name); its bound is found by asking the validator itself —
// the least and greatest values and lengths it accepts, by binary search —
// and a pattern is read from the function and checked against it. A
// validator the generator cannot read (a Validate function, say) is listed
// as Unsupported, for generate to refuse with the field's position.
package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"unicode/utf8"
	"unsafe"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Field is what one field's validators enforce.
type Field struct {
	Name string `json:"name"`
	// MinLen and MaxLen bound a text's length in characters.
	MinLen *int `json:"min_len,omitempty"`
	MaxLen *int `json:"max_len,omitempty"`
	// Patterns are regular expressions (RE2) the text must match.
	Patterns []string `json:"patterns,omitempty"`
	// Min and Max bound a number, as decimal text (exact for int64).
	Min string `json:"min,omitempty"`
	Max string `json:"max,omitempty"`
	// Unsupported names the validators that could not be read.
	Unsupported []string `json:"unsupported,omitempty"`
}

// Schema is one schema's fields that have validators.
type Schema struct {
	Name   string  `json:"name"`
	Fields []Field `json:"fields"`
}

// Print describes every schema of schemas (by ent type name) as a JSON
// line each, for the generator to read.
func Print(w io.Writer, schemas map[string]ent.Interface) error {
	enc := json.NewEncoder(w)
	for name, s := range schemas {
		d, err := Describe(name, s)
		if err != nil {
			return err
		}
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

// Describe reads the validators of the schema's fields, its mixins' first.
func Describe(name string, s ent.Interface) (Schema, error) {
	out := Schema{Name: name}
	var fields []ent.Field
	for _, m := range s.Mixin() {
		fields = append(fields, m.Fields()...)
	}
	fields = append(fields, s.Fields()...)
	for _, f := range fields {
		d := f.Descriptor()
		if d.Err != nil {
			return out, fmt.Errorf("%s.%s: %w", name, d.Name, d.Err)
		}
		if len(d.Validators) == 0 {
			continue
		}
		out.Fields = append(out.Fields, describeField(d))
	}
	return out, nil
}

func describeField(d *field.Descriptor) Field {
	f := Field{Name: d.Name}
	for _, v := range d.Validators {
		name := funcName(v)
		method := builderMethod(name)
		switch method {
		case "MinLen", "MinRuneLen":
			n, ok := lengthBound(v, true, method == "MinRuneLen")
			f.MinLen = tighter(f.MinLen, n, ok, true)
			if !ok {
				f.Unsupported = append(f.Unsupported, name)
			}
		case "MaxLen", "MaxRuneLen":
			n, ok := lengthBound(v, false, method == "MaxRuneLen")
			f.MaxLen = tighter(f.MaxLen, n, ok, false)
			if !ok {
				f.Unsupported = append(f.Unsupported, name)
			}
		case "Match":
			if re, ok := pattern(v); ok {
				f.Patterns = append(f.Patterns, re)
			} else {
				f.Unsupported = append(f.Unsupported, name)
			}
		case "Min", "Max", "Range":
			lo, hi, ok := numericBounds(v)
			if !ok {
				f.Unsupported = append(f.Unsupported, name)
				continue
			}
			if lo != "" && (f.Min == "" || greater(lo, f.Min)) {
				f.Min = lo
			}
			if hi != "" && (f.Max == "" || greater(f.Max, hi)) {
				f.Max = hi
			}
		default:
			f.Unsupported = append(f.Unsupported, name)
		}
	}
	return f
}

// funcName is the name of the function v, e.g.
// entgo.io/ent/schema/field.(*stringBuilder).MinLen.func1.
func funcName(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Func {
		return fmt.Sprintf("%T", v)
	}
	if fn := runtime.FuncForPC(rv.Pointer()); fn != nil {
		return fn.Name()
	}
	return "an unnamed function"
}

// builderMethod is the ent builder method that made the validator named
// name ("MinLen"), or "" for a function made elsewhere. Where the compiler
// inlined the builder into its caller, the function is named after the
// caller, the builder's type and method last:
// records/schema.Book.Fields.(*stringBuilder).MinLen.func3.
var builderFunc = regexp.MustCompile(`\(\*(?:string|int|int8|int16|int32|int64|uint|uint8|uint16|uint32|uint64|float32|float64)Builder\)\.([A-Za-z]+)\.func\d+$`)

func builderMethod(name string) string {
	if m := builderFunc.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// tighter keeps the tighter of a bound and n.
func tighter(cur *int, n int, ok, least bool) *int {
	if !ok {
		return cur
	}
	if cur == nil || (least && n > *cur) || (!least && n < *cur) {
		return &n
	}
	return cur
}

// maxLength bounds the lengths probed: a longer bound is read as none.
const maxLength = 1 << 24

// lengthBound is the least (least) or greatest length the text validator
// accepts, counted in characters (a multi-byte character when runes).
func lengthBound(v any, least, runes bool) (int, bool) {
	check, ok := v.(func(string) error)
	if !ok {
		return 0, false
	}
	unit := "a"
	if runes {
		unit = "é"
	}
	accepts := func(n int64) bool { return check(strings.Repeat(unit, int(n))) == nil }
	if least {
		// The least n it accepts; it accepts every longer one.
		if !accepts(maxLength) {
			return 0, false
		}
		if accepts(0) {
			return 0, true
		}
		_, first := crossing(accepts, 0, maxLength, false)
		return int(first), true
	}
	// The greatest n it accepts; it refuses every longer one.
	if !accepts(0) || accepts(maxLength) {
		return 0, false
	}
	last, _ := crossing(accepts, 0, maxLength, true)
	if runes && utf8.RuneCountInString(strings.Repeat(unit, int(last))) != int(last) {
		return 0, false
	}
	return int(last), true
}

// pattern reads the regular expression a Match validator captured (its
// closure holds the *regexp.Regexp right after the code pointer), and
// checks that the validator and the expression agree on sample texts.
func pattern(v any) (string, bool) {
	check, ok := v.(func(string) error)
	if !ok {
		return "", false
	}
	type closure struct {
		code uintptr
		re   *regexp.Regexp
	}
	c := *(**closure)(unsafe.Pointer(&check))
	if c == nil || c.re == nil {
		return "", false
	}
	re := c.re
	prefix, _ := re.LiteralPrefix()
	for _, s := range []string{"", "a", "A", "0", "123", "abc-123", " ", "x@example.com", re.String(), prefix} {
		if (check(s) == nil) != re.MatchString(s) {
			return "", false
		}
	}
	return re.String(), true
}

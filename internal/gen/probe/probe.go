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
	"math"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
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
	accepts := func(n int) bool { return check(strings.Repeat(unit, n)) == nil }
	if least {
		// The least n it accepts; it accepts every longer one.
		if !accepts(maxLength) {
			return 0, false
		}
		lo, hi := 0, maxLength
		for lo < hi {
			mid := lo + (hi-lo)/2
			if accepts(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo, true
	}
	// The greatest n it accepts; it refuses every longer one.
	if !accepts(0) || accepts(maxLength) {
		return 0, false
	}
	lo, hi := 0, maxLength
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if accepts(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if runes && utf8.RuneCountInString(strings.Repeat(unit, lo)) != lo {
		return 0, false
	}
	return lo, true
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

// numericBounds are the least and greatest values a numeric validator
// accepts ("" where it accepts every value on that side), found by binary
// search over its parameter's type.
func numericBounds(v any) (lo, hi string, ok bool) {
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 1 {
		return "", "", false
	}
	in := t.In(0)
	call := func(x reflect.Value) bool { return rv.Call([]reflect.Value{x.Convert(in)})[0].IsNil() }
	switch in.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		min, max := intRange(in.Bits())
		accepts := func(n int64) bool { return call(reflect.ValueOf(n)) }
		return searchInts(accepts, min, max)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// Unsigned: values up to MaxInt64 are enough for a bound people write.
		max := int64(math.MaxInt64)
		if in.Bits() < 64 {
			max = int64(1)<<in.Bits() - 1
		}
		accepts := func(n int64) bool { return call(reflect.ValueOf(uint64(n))) }
		return searchInts(accepts, 0, max)
	case reflect.Float32, reflect.Float64:
		accepts := func(f float64) bool { return call(reflect.ValueOf(f)) }
		return searchFloats(accepts, in.Bits())
	}
	return "", "", false
}

func intRange(bits int) (int64, int64) {
	if bits == 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -(int64(1) << (bits - 1)), int64(1)<<(bits-1) - 1
}

// searchInts finds the interval [lo, hi] of accepted values within
// [min, max]; the validator accepts an interval (a Min, Max or Range).
func searchInts(accepts func(int64) bool, min, max int64) (string, string, bool) {
	// Some accepted value: the validator's interval holds 0, a bound, or
	// is found by walking powers of two.
	seed, found := int64(0), accepts(0)
	for p := int64(1); !found && p > 0 && p <= max; p <<= 1 {
		switch {
		case accepts(p):
			seed, found = p, true
		case -p >= min && accepts(-p):
			seed, found = -p, true
		}
	}
	if !found {
		return "", "", false
	}
	lo, hi := "", ""
	if !accepts(min) {
		a, b := min, seed // refused at a, accepted at b
		for uint64(b)-uint64(a) > 1 {
			mid := midpoint(a, b)
			if accepts(mid) {
				b = mid
			} else {
				a = mid
			}
		}
		lo = strconv.FormatInt(b, 10)
	}
	if !accepts(max) {
		a, b := seed, max // accepted at a, refused at b
		for uint64(b)-uint64(a) > 1 {
			mid := midpoint(a, b)
			if accepts(mid) {
				a = mid
			} else {
				b = mid
			}
		}
		hi = strconv.FormatInt(a, 10)
	}
	return lo, hi, true
}

// midpoint is halfway from a to b (a < b) without overflow.
func midpoint(a, b int64) int64 { return int64(uint64(a) + (uint64(b)-uint64(a))/2) }

// searchFloats finds the accepted interval's ends exactly, by binary
// search over the floats in their order (their bits, made monotonic).
func searchFloats(accepts func(float64) bool, bits int) (string, string, bool) {
	key := func(f float64) int64 {
		b := int64(math.Float64bits(f))
		if b < 0 {
			b = math.MinInt64 - b
		}
		return b
	}
	val := func(k int64) float64 {
		if k < 0 {
			k = math.MinInt64 - k
		}
		return math.Float64frombits(uint64(k))
	}
	limit := math.MaxFloat64
	if bits == 32 {
		limit = math.MaxFloat32
	}
	acceptsKey := func(k int64) bool { return accepts(val(k)) }
	seed, found := 0.0, accepts(0)
	for _, f := range []float64{1e-6, 1, -1e-6, -1, 1e6, -1e6, 1e15, -1e15, limit, -limit} {
		if !found && accepts(f) {
			seed, found = f, true
		}
	}
	if !found {
		return "", "", false
	}
	format := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, bits) }
	lo, hi := "", ""
	if !accepts(-limit) {
		a, b := key(-limit), key(seed)
		for uint64(b)-uint64(a) > 1 {
			mid := midpoint(a, b)
			if acceptsKey(mid) {
				b = mid
			} else {
				a = mid
			}
		}
		lo = format(val(b))
	}
	if !accepts(limit) {
		a, b := key(seed), key(limit)
		for uint64(b)-uint64(a) > 1 {
			mid := midpoint(a, b)
			if acceptsKey(mid) {
				a = mid
			} else {
				b = mid
			}
		}
		hi = format(val(a))
	}
	return lo, hi, true
}

// greater tells whether the decimal a is greater than b.
func greater(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 == nil && err2 == nil && x != y {
		return x > y
	}
	i, err1 := strconv.ParseInt(a, 10, 64)
	j, err2 := strconv.ParseInt(b, 10, 64)
	return err1 == nil && err2 == nil && i > j
}

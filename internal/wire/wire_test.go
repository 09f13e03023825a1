package wire

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// String reads a string, and a number's text; nothing else.
func TestConvertString(t *testing.T) {
	str := func(s string) []byte { return []byte(s) }
	if v, err := String(str(`"a\tb"`)); err != nil || v != "a\tb" {
		t.Errorf("String: %q %v", v, err)
	}
	if v, err := String(str(`12.50`)); err != nil || v != "12.50" {
		t.Errorf("a number for a string member keeps its text: %q %v", v, err)
	}
	if _, err := String(str(`true`)); err == nil {
		t.Error("a boolean is not a string")
	}
}

// Int64 reads whole numbers in every spelling exactly, and refuses a
// fraction or a value out of range by name.
func TestConvertInt64(t *testing.T) {
	str := func(s string) []byte { return []byte(s) }
	for in, want := range map[string]int64{`7`: 7, `"42"`: 42, `"1e3"`: 1000, `1e3`: 1000, `12.0`: 12, `-9223372036854775808`: math.MinInt64,
		`0`: 0, `-0`: 0, `-0.0e5`: 0, `0e999999999`: 0, `0.000e-999999999`: 0, `1000.000`: 1000, `1E+2`: 100, `"-1e0"`: -1,
		// Whole numbers in other spellings are read from their digits, not
		// through a float64 (which would give 9007199254740992 for the first).
		`9007199254740993.0`: 9007199254740993, `"9007199254740993.0"`: 9007199254740993,
		`1234567890123456789.0`: 1234567890123456789, `12345678901234567.89e2`: 1234567890123456789,
		`123456789012345678900e-2`: 1234567890123456789, `0.1234567890123456789e19`: 1234567890123456789,
		`9223372036854775806.0`: math.MaxInt64 - 1, `"9223372036854775807.0"`: math.MaxInt64, `9.223372036854775807e18`: math.MaxInt64,
		`-9223372036854775808.0`: math.MinInt64, `-9.223372036854775808e18`: math.MinInt64, `"-922337203685477580.8e1"`: math.MinInt64,
		`9223372036854775807`: math.MaxInt64, `999999999999999999`: 999999999999999999, `-999999999999999999`: -999999999999999999,
	} {
		if v, err := Int64(str(in)); err != nil || v != want {
			t.Errorf("Int64(%s) = %d, %v; want %d", in, v, err, want)
		}
	}
	// A numeric string holds a JSON number's text and nothing more.
	for _, bad := range []string{`1.5`, `"x"`, `"1.5"`, `true`, `1e30`, `"0x10"`, `""`, `"012"`, `"1."`, `"1e"`, `"- 1"`,
		`" 9 "`, `" 9"`, `"9\n"`, `"+7"`, `"+1e3"`} {
		if _, err := Int64(str(bad)); err == nil {
			t.Errorf("Int64(%s) must fail", bad)
		}
	}
	// A fraction that is not zero is not a whole number, however small
	// or far down; outside −2⁶³ … 2⁶³−1 is out of range, never clamped,
	// however far out (an exponent of any size is refused at once).
	for in, want := range map[string]error{
		`12.5`: errInteger, `-0.5`: errInteger, `1e-1`: errInteger, `9007199254740993.5`: errInteger,
		`9223372036854775806.5`: errInteger, `-9223372036854775807.5`: errInteger,
		`5e-999999999`: errInteger, `1e-400`: errInteger, `"0.0000000000000000000001"`: errInteger,
		`9223372036854775807.1`: errRange, `9223372036854775808`: errRange, `9223372036854775808.0`: errRange, `9.223372036854775808e18`: errRange,
		`-9223372036854775809`: errRange, `-9223372036854775808.5`: errRange, `-9.223372036854775809e18`: errRange, `1e19`: errRange,
		`1e999999999`: errRange, `-1e999999999999999999999999`: errRange, `12345678901234567890.5`: errRange, `"1e400"`: errRange,
	} {
		if v, err := Int64(str(in)); err != want {
			t.Errorf("Int64(%s) = %d, %v; want %v", in, v, err, want)
		}
	}
}

// Float64 and Bool read their JSON values or a numeric string; -0 is 0.
func TestConvertFloat64AndBool(t *testing.T) {
	str := func(s string) []byte { return []byte(s) }
	for _, bad := range []string{`" 3.5"`, `"3.5 "`, `"+3.5"`, `"NaN"`, `"Infinity"`, `".5"`, `"0x1p-2"`} {
		if _, err := Float64(str(bad)); err == nil {
			t.Errorf("Float64(%s) must fail", bad)
		}
	}
	for in, want := range map[string]float64{`1.25`: 1.25, `"3.5"`: 3.5, `-2`: -2, `"-2.5e1"`: -25} {
		if v, err := Float64(str(in)); err != nil || v != want {
			t.Errorf("Float64(%s) = %v, %v", in, v, err)
		}
	}
	for _, negZero := range []string{`-0`, `"-0.0"`, `-0e5`, `-1e-400`} {
		if v, err := Float64(str(negZero)); err != nil || v != 0 || math.Signbit(v) {
			t.Errorf("Float64(%s) = %v, %v; want 0 (not -0)", negZero, v, err)
		}
	}
	for _, bad := range []string{`"NaN"`, `"Inf"`, `"1e400"`, `[]`, `"1,5"`} {
		if _, err := Float64(str(bad)); err == nil {
			t.Errorf("Float64(%s) must fail", bad)
		}
	}
	for in, want := range map[string]bool{`true`: true, `"false"`: false} {
		if v, err := Bool(str(in)); err != nil || v != want {
			t.Errorf("Bool(%s) = %v %v", in, v, err)
		}
	}
	for _, bad := range []string{`1`, `"yes"`, `"TRUE"`} {
		if _, err := Bool(str(bad)); err == nil {
			t.Errorf("Bool(%s) must fail", bad)
		}
	}
}

// Date and DateTime read RFC 3339 in the years 1–9999, in UTC.
func TestConvertDates(t *testing.T) {
	str := func(s string) []byte { return []byte(s) }
	if d, err := Date(str(`"2026-02-28"`)); err != nil || !d.Equal(time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Date: %v %v", d, err)
	}
	for _, bad := range []string{`"2026-02-30"`, `"2026-2-3"`, `"2026-02-28T00:00:00Z"`, `20260228`, `"0000-01-01"`, `"10000-01-01"`} {
		if _, err := Date(str(bad)); err == nil {
			t.Errorf("Date(%s) must fail", bad)
		}
	}
	for _, edge := range []string{`"0001-01-01"`, `"9999-12-31"`} {
		if _, err := Date(str(edge)); err != nil {
			t.Errorf("Date(%s): %v", edge, err)
		}
	}
	dt, err := DateTime(str(`"2026-02-28T23:59:58.123456789+02:00"`))
	if err != nil || dt.Location() != time.UTC || !dt.Equal(time.Date(2026, 2, 28, 21, 59, 58, 123456000, time.UTC)) {
		t.Errorf("DateTime: %v %v", dt, err)
	}
	// RFC 3339 allows t and z in lower case: the same instants.
	for _, lower := range []string{`"2026-02-28t23:59:58.123456789+02:00"`, `"2026-02-28T21:59:58.123456z"`, `"2026-02-28t21:59:58.123456789z"`} {
		if lt, err := DateTime(str(lower)); err != nil || !lt.Equal(dt) {
			t.Errorf("DateTime(%s): %v %v, want %v", lower, lt, err, dt)
		}
	}
	for _, bad := range []string{`"2026-02-28"`, `"2026-02-28 10:00:00"`, `"yesterday"`, `1700000000`, `"2026-02-28x10:00:00Z"`, `"2026-02-28T10:00:00y"`,
		// Outside the years 1–9999 once in UTC, or an offset of a day.
		`"9999-12-31T23:00:00-05:00"`, `"0001-01-01T00:00:00+01:00"`, `"0000-06-01T00:00:00Z"`, `"2026-01-01T00:00:00+24:00"`} {
		if _, err := DateTime(str(bad)); err == nil {
			t.Errorf("DateTime(%s) must fail", bad)
		}
	}
	for _, edge := range []string{`"0001-01-01T00:00:00Z"`, `"9999-12-31T23:59:59.999999Z"`, `"0001-01-01T10:00:00+09:59"`, `"2026-01-01T00:00:00-23:59"`} {
		if _, err := DateTime(str(edge)); err != nil {
			t.Errorf("DateTime(%s): %v", edge, err)
		}
	}
}

// StringMap, Object and ID.
func TestConvertMapsObjectsAndIDs(t *testing.T) {
	str := func(s string) []byte { return []byte(s) }
	if m, err := StringMap(str(`{"a":"b"}`)); err != nil || m["a"] != "b" {
		t.Errorf("StringMap: %v %v", m, err)
	}
	if _, err := StringMap(str(`{"a":1}`)); err == nil {
		t.Error("StringMap with a number value must fail")
	}
	if o, err := Object(str(`{ "a" : [1, 2] }`)); err != nil || string(o) != `{"a":[1,2]}` {
		t.Errorf("Object: %s %v", o, err)
	}
	for _, bad := range []string{`""`, `"a/b"`, `"x\u0001"`, `"x\u007f"`, `"x\u0085"`, `"."`, `".."`, `"` + strings.Repeat("x", 256) + `"`, `true`} {
		if _, err := ID(str(bad)); err == nil {
			t.Errorf("ID(%s) must fail", bad)
		}
	}
	if id, err := ID(str(`"..."`)); err != nil || id != "..." {
		t.Errorf("three dots are an id: %q %v", id, err)
	}
	if id, err := ID(str(`12`)); err != nil || id != "12" {
		t.Errorf("a numeric id is its text: %q %v", id, err)
	}
}

func TestFieldPresence(t *testing.T) {
	var f Field[string]
	if f.Value() != nil {
		t.Error("absent has no value")
	}
	f.Decode([]byte("null"), String)
	if !f.Set || !f.Null || f.Value() != nil {
		t.Errorf("null: %+v", f)
	}
	f = Field[string]{}
	f.Decode([]byte(`"x"`), String)
	if !f.Set || f.Null || *f.Value() != "x" {
		t.Errorf("value: %+v", f)
	}
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x1f\t\n\r", "ü 数据 😀", "\u2028\u2029", "<&>"} {
		got := string(AppendString(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
			t.Errorf("AppendString(%q) = %s, reads back %q (%v)", s, got, back, err)
		}
	}
	if got := string(AppendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
	for _, f := range []float64{0, 1, -1.5, 1234.5678, 0.1, 1e-7, 123456789e15, 1e21, 5e-324, math.MaxFloat64} {
		want, _ := json.Marshal(f)
		if got := string(AppendFloat(nil, f)); got != string(want) {
			t.Errorf("AppendFloat(%v) = %s, encoding/json writes %s", f, got, want)
		}
	}
	if got := string(AppendFloat(nil, math.NaN())); got != "null" {
		t.Errorf("NaN: %s", got)
	}
	ts := time.Date(2026, 2, 28, 21, 59, 58, 123456000, time.FixedZone("x", 7200))
	if got := string(AppendTime(nil, ts)); got != `"2026-02-28T19:59:58.123456Z"` {
		t.Errorf("AppendTime: %s", got)
	}
	d := time.Date(2026, 2, 28, 0, 0, 0, 0, time.FixedZone("east", 3600))
	if got := string(AppendDatePtr(nil, &d)); got != `"2026-02-28"` {
		t.Errorf("a date keeps its calendar day: %s", got)
	}
	if got := string(AppendStringMap(nil, map[string]string{"b": "2", "a": "1"})); got != `{"a":"1","b":"2"}` {
		t.Errorf("AppendStringMap: %s", got)
	}
	if got := string(AppendRaw(nil, json.RawMessage(`{ "a" : 1 }`))); got != `{"a":1}` {
		t.Errorf("AppendRaw: %s", got)
	}
}

// FuzzConverters: every member conversion, on any JSON value a body can
// hold, either refuses it or answers a value a database can keep: text
// that is valid UTF-8 without NUL, integers that are what the text says.
func FuzzConverters(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\u0000b"`, `"\ud800x"`, `"\ud83d\ude00"`, `12`, `-9223372036854775809`,
		`9223372036854775807`, `1e3`, `12.5`, `"2026-01-02"`, `"2026-01-02T03:04:05Z"`, `{"a":"b"}`, `{"a":"\u0000"}`,
		`true`, `"true"`, `null`, `[1]`, `"a\\u0000"`, `-0`, `1e400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := ParseObject(append(append([]byte(`{"m":`), data...), '}'))
		if err != nil || len(members) != 1 {
			return
		}
		v := members[0].Value
		text := func(s string) {
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				t.Fatalf("%q converted to text a database cannot keep: %q", v, s)
			}
		}
		if s, err := String(v); err == nil {
			text(s)
		}
		if s, err := Text(v); err == nil {
			text(s)
		}
		if s, err := ID(v); err == nil {
			text(s)
			if CheckID(s) != nil {
				t.Fatalf("ID accepted %q, which CheckID refuses", s)
			}
		}
		if n, err := Int64(v); err == nil {
			if f, err := Float64(v); err != nil || math.Abs(f-float64(n)) > math.Abs(f)*1e-15+0.5 {
				t.Fatalf("Int64(%q) = %d, Float64 = %v %v", v, n, f, err)
			}
		}
		checkInt64Exactly(t, v)
		if m, err := StringMap(v); err == nil {
			for k, s := range m {
				text(k)
				text(s)
			}
		}
		if o, err := Object(v); err == nil {
			var doc any
			if err := json.Unmarshal(o, &doc); err != nil {
				t.Fatalf("Object(%q) = %q: %v", v, o, err)
			}
			var walk func(any)
			walk = func(x any) {
				switch x := x.(type) {
				case string:
					text(x)
				case []any:
					for _, e := range x {
						walk(e)
					}
				case map[string]any:
					for k, e := range x {
						text(k)
						walk(e)
					}
				}
			}
			walk(doc)
		}
		_, _ = Bool(v)
		_, _ = Date(v)
		_, _ = DateTime(v)
	})
}

// checkInt64Exactly holds Int64 to the exact value of the number v holds,
// as math/big reads it: the integer itself, errRange outside −2⁶³ … 2⁶³−1,
// errInteger for a fraction. Numbers whose exponent big would take long to
// expand are left to the other checks.
func checkInt64Exactly(t *testing.T, v []byte) {
	s, err := numberText(v, errInteger)
	if err != nil {
		return
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(s[i+1:]); err != nil || e > 1000 || e < -1000 {
			return
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("math/big cannot read %q, a JSON number", s)
	}
	n, err := Int64(v)
	switch {
	case r.Cmp(new(big.Rat).SetInt64(math.MinInt64)) < 0 || r.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0:
		if err != errRange {
			t.Fatalf("Int64(%q) = %d, %v; want %v", v, n, err, errRange)
		}
	case !r.IsInt():
		if err != errInteger {
			t.Fatalf("Int64(%q) = %d, %v; want %v", v, n, err, errInteger)
		}
	case err != nil || n != r.Num().Int64():
		t.Fatalf("Int64(%q) = %d, %v; want %s", v, n, err, r.Num())
	}
}

func TestFinerThanMicroseconds(t *testing.T) {
	for text, want := range map[string]bool{
		`"2026-01-02T09:01:00Z"`:                 false,
		`"2026-01-02T09:01:00.123456Z"`:          false,
		`"2026-01-02T09:01:00.123456000+01:00"`:  false,
		`"2026-01-02T09:01:00.1234567Z"`:         true,
		`"2026-01-02T09:01:00.0000000001-05:00"`: true,
	} {
		if got := FinerThanMicroseconds([]byte(text)); got != want {
			t.Errorf("%s: %v, want %v", text, got, want)
		}
	}
}

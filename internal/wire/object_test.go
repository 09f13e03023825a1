package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseObject(t *testing.T) {
	members, err := ParseObject([]byte(` {"a": 1, "b\u00e9": {"x": [true, null, "s"]}, "c": "q\"\n"} `))
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{{"a", []byte("1")}, {"bé", []byte(`{"x": [true, null, "s"]}`)}, {"c", []byte(`"q\"\n"`)}}
	if len(members) != len(want) {
		t.Fatalf("got %d members", len(members))
	}
	for i := range want {
		if members[i].Name != want[i].Name || string(members[i].Value) != string(want[i].Value) {
			t.Errorf("member %d: got %q=%s, want %q=%s", i, members[i].Name, members[i].Value, want[i].Name, want[i].Value)
		}
	}
	for _, empty := range []string{"", "  \n", "{}", " { } "} {
		if m, err := ParseObject([]byte(empty)); err != nil || len(m) != 0 {
			t.Errorf("%q: want no members, got %v %v", empty, m, err)
		}
	}
}

func TestParseObjectErrors(t *testing.T) {
	cases := []struct {
		in     string
		offset int // -1: not a syntax error
		kind   string
	}{
		{`{"a": 1,}`, 8, ""},
		{`{"a" 1}`, 5, ""},
		{`{"a": tru}`, 6, ""},
		{`{"a": 01}`, 7, ""},
		{`{"a": 1.}`, 8, ""},
		{`{"a": "x`, 8, ""},
		{"{\"a\": \"\x01\"}", 7, ""},
		{"{\"a\": \"\xff\"}", 7, ""},
		{`{"a": "\x"}`, 7, ""},
		{`{"a": 1} x`, 9, ""},
		{`{a: 1}`, 1, ""},
		{`[1, 2]`, -1, "an array"},
		{`"text"`, -1, "a string"},
		{`42`, -1, "a number"},
		{`{"a": 1, "a": 2}`, -1, "duplicate"},
	}
	for _, tc := range cases {
		_, err := ParseObject([]byte(tc.in))
		var se *SyntaxError
		var ne *NotObjectError
		var de *DuplicateError
		switch {
		case tc.offset >= 0:
			if !errors.As(err, &se) || se.Offset != tc.offset {
				t.Errorf("%q: want a syntax error at byte %d, got %v", tc.in, tc.offset, err)
			}
		case tc.kind == "duplicate":
			if !errors.As(err, &de) || de.Name != "a" {
				t.Errorf("%q: want a duplicate error, got %v", tc.in, err)
			}
		default:
			if !errors.As(err, &ne) || ne.Kind != tc.kind {
				t.Errorf("%q: want not-an-object (%s), got %v", tc.in, tc.kind, err)
			}
		}
	}
	// A repeat is found however many members come before it: among the
	// first few, and past them (where names are kept in a map).
	for _, n := range []int{3, scanNames, scanNames + 1, 5000} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"m%d":%d,`, i, i)
		}
		fmt.Fprintf(&b, `"m%d":0}`, n/2)
		var de *DuplicateError
		if _, err := ParseObject([]byte(b.String())); !errors.As(err, &de) || de.Name != fmt.Sprintf("m%d", n/2) {
			t.Errorf("%d members then a repeat: want a duplicate error, got %v", n, err)
		}
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	var de *DepthError
	if _, err := ParseObject([]byte(`{"a":` + deep + `}`)); !errors.As(err, &de) {
		t.Errorf("nesting beyond the limit must fail as too deep, not as malformed: %v", err)
	}
}

// An object member refuses a name given twice in any object within it, as
// a body does; the same name in two objects is fine.
func TestObjectMembersNameEachMemberOnce(t *testing.T) {
	for _, bad := range []string{`{"a":1,"a":2}`, `{"x":{"a":1,"b":2,"a":3}}`, `{"x":[1,{"y":{"a":1,"a":1}}]}`, `{"\u0061":1,"a":2}`} {
		if _, err := Object([]byte(bad)); err == nil || !strings.Contains(err.Error(), `"a" twice`) {
			t.Errorf("Object(%s) = %v, want the repeat named", bad, err)
		}
	}
	for _, good := range []string{`{"x":[{"a":1},{"a":2}],"a":{"a":{"a":null}}}`, `{}`} {
		if _, err := Object([]byte(good)); err != nil {
			t.Errorf("Object(%s): %v", good, err)
		}
	}
	if _, err := StringMap([]byte(`{"k":"a","k":"b"}`)); err == nil || !strings.Contains(err.Error(), `"k" twice`) {
		t.Errorf("StringMap with a repeated key: %v", err)
	}
}

// An object member holds numbers a double holds: one past ±1.8e308 is
// refused, named, wherever it is; 1e300, or one that rounds to zero, is kept
// as written.
func TestObjectMembersHoldFiniteNumbers(t *testing.T) {
	for _, bad := range []string{`{"n":1e400}`, `{"x":[1,{"y":-2e308}]}`, `{"n":` + strings.Repeat("9", 400) + `}`} {
		if _, err := Object([]byte(bad)); err == nil || !strings.Contains(err.Error(), "double precision") {
			t.Errorf("Object(%s) = %v, want the number refused", bad, err)
		}
	}
	for _, good := range []string{`{"n":1e300}`, `{"n":1e-400}`, `{"n":-1.7976931348623157e308}`} {
		if got, err := Object([]byte(good)); err != nil || string(got) != good {
			t.Errorf("Object(%s) = %s, %v", good, got, err)
		}
	}
}

func TestUnicodeEscapes(t *testing.T) {
	m, err := ParseObject([]byte(`{"\ud83d\ude00 \u00fc \ud800": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if m[0].Name != "😀 ü \ufffd" {
		t.Errorf("got %q", m[0].Name)
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,"x",null]}}`, `{"\u00e9":"\n"}`, `[1]`, `{"a":1,"a":2}`, `{"a":-0.5e-3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := ParseObject(data)
		var dup *DuplicateError
		var notObj *NotObjectError
		var deep *DepthError
		valid := json.Valid(data)
		if err == nil && len(strings.TrimSpace(string(data))) > 0 && !valid {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err != nil && !errors.As(err, &dup) && !errors.As(err, &notObj) && !errors.As(err, &deep) && valid {
			// Only invalid UTF-8 inside strings is stricter than encoding/json.
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "UTF-8") {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
		}
		if err == nil && len(members) > 0 {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatalf("encoding/json cannot read what was accepted: %v", err)
			}
			for _, mem := range members {
				if _, ok := m[mem.Name]; !ok {
					t.Fatalf("member name %q decoded differently from encoding/json", mem.Name)
				}
			}
		}
	})
}

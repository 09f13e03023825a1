package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"records/internal/spec"
)

// Field is one member of a decoded body: whether it was present, whether it
// was null, and its value. Absent and null differ: absent leaves a stored
// value alone, null clears it.
type Field[T any] struct {
	Set  bool
	Null bool
	V    T
}

// Decode reads v into the field with conv; JSON null sets Null. The error is
// the problem with the value, for the caller to attach to the member's name.
func (f *Field[T]) Decode(v []byte, conv func([]byte) (T, error)) error {
	f.Set = true
	if IsNull(v) {
		f.Null = true
		return nil
	}
	x, err := conv(v)
	if err != nil {
		return err
	}
	f.V = x
	return nil
}

// Put sets the field to a value, as if the client had sent it.
func (f *Field[T]) Put(v T) { *f = Field[T]{Set: true, V: v} }

// Value returns a pointer to the value, or nil when absent or null.
func (f *Field[T]) Value() *T {
	if !f.Set || f.Null {
		return nil
	}
	return &f.V
}

// Problems with a value, as told to the client.
var (
	errString   = errors.New("must be a string")
	errNumber   = errors.New("must be a number (or a string holding one)")
	errInteger  = errors.New("must be a whole number (or a string holding one)")
	errRange    = errors.New("is out of range")
	errBool     = errors.New("must be true or false")
	errDate     = errors.New("must be a date as YYYY-MM-DD")
	errDateTime = errors.New("must be a date-time in RFC 3339, e.g. 2026-01-02T15:04:05Z")
	// Both databases and RFC 3339 hold four-digit years (PostgreSQL would
	// take year 0 as 1 BC, SQLite's text a year 10000 no reader parses).
	errDateRange     = errors.New("must be a date from 0001-01-01 to 9999-12-31")
	errDateTimeRange = errors.New("must be a date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z, in UTC")
	errObject        = errors.New("must be an object")
	errStrings       = errors.New("must be an object whose values are strings")
	errID            = errors.New("must be UTF-8 text of 1 to 255 characters, without / or control characters")
	errDotID         = errors.New(`must not be "." or "..", which URLs drop from a path`)
	errNUL           = errors.New("must not hold a NUL character (\\u0000)")
	errUnicode       = errors.New("must be valid Unicode: it holds an unpaired UTF-16 surrogate escape (\\ud800–\\udfff)")
)

// String converts a string member. A JSON number is taken as its literal
// text, since the reference's samples send numbers where strings are declared.
func String(v []byte) (string, error) {
	switch Kind(v) {
	case "a string":
		if err := checkEscapes(v); err != nil {
			return "", err
		}
		return decodeString(v), nil
	case "a number":
		return string(v), nil
	}
	return "", errString
}

var errIndexedText = fmt.Errorf("must be text of at most %d bytes in UTF-8 (the member is indexed)", spec.MaxIndexedText)

// IndexedString converts a String member the database indexes: at most
// spec.MaxIndexedText bytes.
func IndexedString(v []byte) (string, error) {
	s, err := String(v)
	if err == nil && len(s) > spec.MaxIndexedText {
		return "", errIndexedText
	}
	return s, err
}

// ID converts a record id: a string (or number) of 1–255 characters with no
// "/" or control characters, so that every id can be written in a path.
func ID(v []byte) (string, error) {
	s, err := String(v)
	if err != nil {
		return "", errID
	}
	if err := CheckID(s); err != nil {
		return "", err
	}
	return s, nil
}

// CheckID applies ID's rules to an id from a path or a query.
func CheckID(s string) error {
	if s == "" || len(s) > 255 && utf8.RuneCountInString(s) > 255 || strings.ContainsRune(s, '/') || !utf8.ValidString(s) {
		return errID
	}
	if s == "." || s == ".." {
		return errDotID
	}
	for _, r := range s {
		if unicode.IsControl(r) { // C0, DEL and C1
			return errID
		}
	}
	return nil
}

// Bool converts a boolean member: true or false, or the strings "true" and "false".
func Bool(v []byte) (bool, error) {
	switch string(v) {
	case "true", `"true"`:
		return true, nil
	case "false", `"false"`:
		return false, nil
	}
	return false, errBool
}

// Object converts a member holding any JSON object; it is kept compacted.
// A name given twice in any object within it is refused, as in a body.
func Object(v []byte) (json.RawMessage, error) {
	if Kind(v) != "an object" {
		return nil, errObject
	}
	if err := checkEscapes(v); err != nil {
		return nil, err
	}
	var dup *DuplicateError
	var big *RangeError
	switch err := checkDocument(v); {
	case errors.As(err, &dup):
		return nil, fmt.Errorf("names the member %q twice in one object", dup.Name)
	case errors.As(err, &big):
		return nil, big
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, errObject
	}
	return json.RawMessage(b.Bytes()), nil
}

// StringMap converts a member holding an object of string values.
func StringMap(v []byte) (map[string]string, error) {
	if Kind(v) != "an object" {
		return nil, errStrings
	}
	members, err := ParseObject(v)
	var dup *DuplicateError
	if errors.As(err, &dup) {
		return nil, fmt.Errorf("names the member %q twice", dup.Name)
	}
	if err != nil {
		return nil, errStrings
	}
	if err := checkEscapes(v); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(members))
	for _, m := range members {
		if Kind(m.Value) != "a string" {
			return nil, errStrings
		}
		out[m.Name] = decodeString(m.Value)
	}
	return out, nil
}

// Text converts a member that must be a JSON string (no numbers), e.g. a
// list parameter naming a member.
func Text(v []byte) (string, error) {
	if Kind(v) != "a string" {
		return "", errString
	}
	if err := checkEscapes(v); err != nil {
		return "", err
	}
	return decodeString(v), nil
}

// checkEscapes refuses the JSON escapes that make valid JSON but not text
// a database keeps: \u0000 (PostgreSQL's text cannot hold NUL) and UTF-16
// surrogates that are not a pair (no character at all). v is raw JSON the
// parser has accepted (so its bytes are valid UTF-8, without raw control
// characters); every escape in it is inside a string.
func checkEscapes(v []byte) error {
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		if i+1 < len(v) && v[i+1] != 'u' {
			i++ // \n, \", \\ …
			continue
		}
		if i+6 > len(v) {
			return errUnicode
		}
		r := hexVal(v[i+2 : i+6])
		switch {
		case r == 0:
			return errNUL
		case r >= 0xD800 && r < 0xDC00:
			if i+12 > len(v) || v[i+6] != '\\' || v[i+7] != 'u' {
				return errUnicode
			}
			if r2 := hexVal(v[i+8 : i+12]); r2 < 0xDC00 || r2 >= 0xE000 {
				return errUnicode
			}
			i += 11
		case r >= 0xDC00 && r < 0xE000:
			return errUnicode
		default:
			i += 5
		}
	}
	return nil
}

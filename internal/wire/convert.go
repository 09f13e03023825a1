package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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

// numberText returns the text of a JSON number, or of a JSON string holding
// one. The one rule for numeric strings, in bodies and filters alike
// (docs/api.md): the string holds a JSON number's text and nothing more —
// "7", "-7", "1e3", "7.0" are the numbers 7, -7, 1e3 and 7.0 are; spaces,
// a "+", leading zeros, hexadecimal, "NaN" and "Infinity" are refused.
func numberText(v []byte, want error) (string, error) {
	switch Kind(v) {
	case "a number":
		return string(v), nil
	case "a string":
		s := decodeString(v)
		if !isJSONNumber(s) {
			return "", want
		}
		return s, nil
	}
	return "", want
}

// isJSONNumber tells whether s is a number in JSON's grammar.
func isJSONNumber(s string) bool {
	p := parser{data: []byte(s)}
	if p.peek() != '-' && (p.peek() < '0' || p.peek() > '9') {
		return false
	}
	return p.number() == nil && p.pos == len(s)
}

// Int64 converts an integer member: a JSON number or numeric string with no
// fractional part (1e3 and 12.0 are whole numbers), read exactly from its
// digits, never through a float64 (which holds integers exactly only up to
// 2⁵³): 9007199254740993.0 is 9007199254740993.
func Int64(v []byte) (int64, error) {
	if Kind(v) == "a number" {
		return wholeNumber(v) // no copy: plain digits are read allocating nothing
	}
	s, err := numberText(v, errInteger)
	if err != nil {
		return 0, err
	}
	return wholeNumber(s)
}

// wholeNumber reads a number in JSON's grammar as an int64, exactly: its
// digits (those before the point, then those after it) times ten to the
// exponent less the count of digits after the point. A value outside
// −2⁶³ … 2⁶³−1 is errRange (9223372036854775807.5 too); inside, a
// fraction that is not zero is errInteger. The work is one pass over the
// text whatever the exponent: 1e999999999 is refused as soon as it is read.
func wholeNumber[T ~string | ~[]byte](s T) (int64, error) {
	i := 0
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intEnd := i
	if intEnd == intStart || s[intStart] == '0' && intEnd-intStart > 1 {
		return 0, errInteger
	}
	fracStart, fracEnd := i, i
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if fracEnd = i; fracEnd == fracStart {
			return 0, errInteger
		}
	}
	exp, hasExp := 0, i < len(s) && (s[i] == 'e' || s[i] == 'E')
	if hasExp {
		i++
		expNeg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expStart := i
		for ; i < len(s) && isDigit(s[i]); i++ {
			// An exponent past the text's length plus 19 decides alone:
			// every digit is then at or past 10¹⁹ (out of range) or behind
			// the point (a fraction, or zero). So it stops growing there,
			// and cannot overflow however many digits it has.
			if exp <= len(s)+19 {
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if i == expStart {
			return 0, errInteger
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) {
		return 0, errInteger
	}
	intLen, fracLen := intEnd-intStart, fracEnd-fracStart
	if fracLen == 0 && !hasExp && intLen <= 18 {
		// Plain digits below 10¹⁸ cannot overflow: the common case.
		var n int64
		for k := intStart; k < intEnd; k++ {
			n = n*10 + int64(s[k]-'0')
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	// The digits as one run: the integer part's, then the fraction's.
	digit := func(k int) byte {
		if k < intLen {
			return s[intStart+k]
		}
		return s[fracStart+k-intLen]
	}
	total := intLen + fracLen
	lead := 0
	for lead < total && digit(lead) == '0' {
		lead++
	}
	if lead == total {
		return 0, nil // -0, 0.000, 0e999999999
	}
	trail := 0
	for digit(total-1-trail) == '0' {
		trail++
	}
	// The value is the significant digits times 10^scale; its integer part
	// has significant+scale digits, and it has a fraction when scale < 0.
	significant, scale := total-lead-trail, exp-fracLen+trail
	whole := significant + scale
	if whole > 19 { // 10¹⁹ or more
		return 0, errRange
	}
	var u uint64 // the integer part, at most 19 digits: below 10¹⁹ < 2⁶⁴
	for k := lead; k < lead+min(significant, whole); k++ {
		u = u*10 + uint64(digit(k)-'0')
	}
	for range scale {
		u *= 10
	}
	// Past the end of −2⁶³ … 2⁶³−1 when the integer part is past it, or at
	// it with a fraction beyond.
	fraction := scale < 0
	limit := uint64(1 << 63) // −2⁶³'s magnitude
	if !neg {
		limit-- // 2⁶³−1
	}
	switch {
	case u > limit || u == limit && fraction:
		return 0, errRange
	case fraction:
		return 0, errInteger
	case neg:
		return int64(-u), nil // −2⁶³ when u is 2⁶³: -u wraps to itself
	}
	return int64(u), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Float64 converts a number member: a JSON number or numeric string. Zero
// is the one zero (-0 is 0), as the databases do not agree on keeping its
// sign (SQLite does not, PostgreSQL does).
func Float64(v []byte) (float64, error) {
	s, err := numberText(v, errNumber)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errRange
	}
	if f == 0 {
		f = 0 // +0 for -0
	}
	return f, nil
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

// Date converts a Date member: "YYYY-MM-DD", held as midnight UTC.
func Date(v []byte) (time.Time, error) {
	if Kind(v) != "a string" {
		return time.Time{}, errDate
	}
	t, err := time.Parse(time.DateOnly, decodeString(v))
	if err != nil {
		return time.Time{}, errDate
	}
	if !fourDigitYear(t) {
		return time.Time{}, errDateRange
	}
	return t, nil
}

// LastInstant is the latest instant a Date/Time member holds.
var LastInstant = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)

// fourDigitYear tells whether t, in UTC, falls in the years 1 to 9999.
func fourDigitYear(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// DateTime converts a Date/Time member: an RFC 3339 timestamp, held in UTC
// with the microsecond precision both databases keep. RFC 3339 (§5.6)
// allows "t" and "z" in lower case, which many clients send; Go's parser
// takes only "T" and "Z", so they are raised first.
func DateTime(v []byte) (time.Time, error) {
	if Kind(v) != "a string" {
		return time.Time{}, errDateTime
	}
	t, err := time.Parse(time.RFC3339Nano, upperTZ(decodeString(v)))
	if _, offset := t.Zone(); err != nil || offset <= -24*3600 || offset >= 24*3600 {
		// RFC 3339 offsets run from -23:59 to +23:59.
		return time.Time{}, errDateTime
	}
	if !fourDigitYear(t) {
		return time.Time{}, errDateTimeRange
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// upperTZ raises the separator "t" (after YYYY-MM-DD) and the zone "z" (at
// the end) of an RFC 3339 timestamp; other text is left as it is, for the
// parser to refuse.
func upperTZ(s string) string {
	if len(s) <= 10 || s[10] != 't' && s[len(s)-1] != 'z' {
		return s
	}
	b := []byte(s)
	if b[10] == 't' {
		b[10] = 'T'
	}
	if b[len(b)-1] == 'z' {
		b[len(b)-1] = 'Z'
	}
	return string(b)
}

// FinerThanMicroseconds tells whether v, a valid Date/Time value (see
// DateTime), holds a time between two microseconds, which DateTime
// truncates: a digit past the sixth of its fraction is not zero. (Its
// text is read, not parsed again: RFC 3339 has a point only before the
// fraction.)
func FinerThanMicroseconds(v []byte) bool {
	s := decodeString(v)
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return false
	}
	end := i + 1
	for end < len(s) && isDigit(s[end]) {
		end++
	}
	return end-i-1 > 6 && strings.Trim(s[i+7:end], "0") != ""
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
	if err := CheckUnique(v); errors.As(err, &dup) {
		return nil, fmt.Errorf("names the member %q twice in one object", dup.Name)
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

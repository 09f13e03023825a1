package wire

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 are escaped so the output is safe inside JavaScript.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendStringContent(b, s)
	return append(b, '"')
}

// AppendStringContent appends s escaped as in AppendString, without the
// quotes, so that several pieces can make one JSON string.
func AppendStringContent(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// AppendStringPtr appends a nullable string.
func AppendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendInt appends an integer.
func AppendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// AppendInt64Ptr appends a nullable integer.
func AppendInt64Ptr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// AppendFloat appends a number as encoding/json would: the shortest text
// that reads back as the same float64. NaN and infinities, which JSON cannot
// hold, become null.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as encoding/json writes it.
		if n := len(b) - start; n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

// AppendFloat64Ptr appends a nullable number.
func AppendFloat64Ptr(b []byte, f *float64) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	return AppendFloat(b, *f)
}

// AppendBool appends a boolean.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// AppendBoolPtr appends a nullable boolean.
func AppendBoolPtr(b []byte, v *bool) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return AppendBool(b, *v)
}

// AppendDate appends a Date as "YYYY-MM-DD". The calendar day is read as
// stored, without converting zones.
func AppendDate(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.DateOnly)
	return append(b, '"')
}

// AppendDatePtr appends a nullable Date.
func AppendDatePtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return AppendDate(b, *t)
}

// AppendTime appends a Date/Time in RFC 3339, in UTC.
func AppendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// AppendTimePtr appends a nullable Date/Time.
func AppendTimePtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return AppendTime(b, *t)
}

// AppendRaw appends a stored JSON document compacted (PostgreSQL's jsonb
// answers it re-spaced); empty is null.
func AppendRaw(b []byte, v json.RawMessage) []byte {
	if len(v) == 0 {
		return append(b, "null"...)
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, v); err != nil {
		return append(b, "null"...)
	}
	return buf.Bytes()
}

// AppendStringMap appends an object of strings with its keys sorted; nil is null.
func AppendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = AppendString(b, m[k])
	}
	return append(b, '}')
}

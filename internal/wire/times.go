package wire

import (
	"strings"
	"time"
)

// Dates and date-times: RFC 3339, years 1 to 9999, microseconds.

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

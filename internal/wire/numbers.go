package wire

import (
	"math"
	"strconv"
)

// Numbers: integer and number members, read from JSON numbers and numeric
// strings by one rule.

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
	n, ok := scanNumber(s)
	if !ok {
		return 0, errInteger
	}
	if n.fracEnd == n.fracStart && !n.hasExp && n.intEnd-n.intStart <= 18 {
		// Plain digits below 10¹⁸ cannot overflow: the common case.
		var v int64
		for k := n.intStart; k < n.intEnd; k++ {
			v = v*10 + int64(s[k]-'0')
		}
		if n.neg {
			v = -v
		}
		return v, nil
	}
	return exactWhole(s, n)
}

// numberParts are where the parts of a number's text lie, and its
// exponent's value.
type numberParts struct {
	neg                bool
	intStart, intEnd   int // the digits before the point
	fracStart, fracEnd int // the digits after it (none: equal)
	hasExp             bool
	exp                int
}

// scanNumber finds the parts of a number in JSON's grammar; ok is false
// when s is not one.
func scanNumber[T ~string | ~[]byte](s T) (n numberParts, ok bool) {
	i := 0
	n.neg = len(s) > 0 && s[0] == '-'
	if n.neg {
		i++
	}
	n.intStart = i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n.intEnd = i
	if n.intEnd == n.intStart || s[n.intStart] == '0' && n.intEnd-n.intStart > 1 {
		return n, false
	}
	n.fracStart, n.fracEnd = i, i
	if i < len(s) && s[i] == '.' {
		i++
		n.fracStart = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if n.fracEnd = i; n.fracEnd == n.fracStart {
			return n, false
		}
	}
	if n.hasExp = i < len(s) && (s[i] == 'e' || s[i] == 'E'); n.hasExp {
		if i, ok = scanExponent(s, i+1, &n.exp); !ok {
			return n, false
		}
	}
	return n, i == len(s)
}

// scanExponent reads an exponent's sign and digits from s[i:] into exp;
// it returns where they end, and false when there are no digits.
func scanExponent[T ~string | ~[]byte](s T, i int, exp *int) (int, bool) {
	neg := i < len(s) && s[i] == '-'
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for ; i < len(s) && isDigit(s[i]); i++ {
		// An exponent past the text's length plus 19 decides alone:
		// every digit is then at or past 10¹⁹ (out of range) or behind
		// the point (a fraction, or zero). So it stops growing there,
		// and cannot overflow however many digits it has.
		if *exp <= len(s)+19 {
			*exp = *exp*10 + int(s[i]-'0')
		}
	}
	if neg {
		*exp = -*exp
	}
	return i, i > start
}

// exactWhole is wholeNumber of a number with a fraction, an exponent or
// more than 18 digits: its significant digits, scaled, checked against
// the range and for a fraction.
func exactWhole[T ~string | ~[]byte](s T, n numberParts) (int64, error) {
	intLen, fracLen := n.intEnd-n.intStart, n.fracEnd-n.fracStart
	// The digits as one run: the integer part's, then the fraction's.
	digit := func(k int) byte {
		if k < intLen {
			return s[n.intStart+k]
		}
		return s[n.fracStart+k-intLen]
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
	significant, scale := total-lead-trail, n.exp-fracLen+trail
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
	if !n.neg {
		limit-- // 2⁶³−1
	}
	switch {
	case u > limit || u == limit && fraction:
		return 0, errRange
	case fraction:
		return 0, errInteger
	case n.neg:
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

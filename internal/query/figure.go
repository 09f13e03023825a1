package query

import (
	"errors"
	"math"
	"math/big"
	"strconv"

	"records/internal/spec"
	"records/internal/wire"
)

// ErrBeyond is a sum or an average that no JSON number a client reads
// (double precision) holds: beyond about ±1.8e308.
var ErrBeyond = errors.New("is beyond what a number holds (about ±1.8e308)")

// AppendFigure appends a sum's or an average's JSON from the values of
// its Columns as a driver answered them — PostgreSQL's sums as numeric
// text, SQLite's as integers (a sum of whole numbers' high and low bits)
// or a double — or null when the group has no value. A sum of whole
// numbers is exact; of numbers, SumDigits significant digits; an average
// AvgDigits decimal places.
func (m Metric) AppendFigure(b []byte, vals []any) ([]byte, error) {
	var whole *big.Int // a sum of whole numbers, exact
	var x float64      // else the sum
	switch v := vals[0].(type) {
	case nil:
		return append(b, "null"...), nil
	case []byte:
		return m.appendText(b, string(v), vals)
	case string:
		return m.appendText(b, v, vals)
	case int64:
		lo, _ := vals[1].(int64)
		whole = new(big.Int).Lsh(big.NewInt(v), 32)
		whole.Add(whole, big.NewInt(lo))
	case float64:
		x = v
	default:
		return b, errors.New("query: a sum of a type the drivers do not answer")
	}
	return m.appendSum(b, whole, x, vals)
}

// appendText appends the figure of PostgreSQL's numeric sum text.
func (m Metric) appendText(b []byte, text string, vals []any) ([]byte, error) {
	if m.Col.Type == spec.Integer {
		whole, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return b, errors.New("query: a sum of whole numbers that is not one: " + text)
		}
		return m.appendSum(b, whole, 0, vals)
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return b, err
	}
	return m.appendSum(b, nil, x, vals)
}

// appendSum appends the sum (whole, or else x), or the average of the
// values the last of vals counts.
func (m Metric) appendSum(b []byte, whole *big.Int, x float64, vals []any) ([]byte, error) {
	if m.Fn == "avg" {
		n, _ := vals[len(vals)-1].(int64)
		if n == 0 {
			return append(b, "null"...), nil
		}
		if whole != nil {
			x, _ = new(big.Rat).SetFrac(whole, big.NewInt(n)).Float64()
		} else {
			x /= float64(n)
		}
		x = rounded(x, 'f', AvgDigits)
	} else if whole != nil {
		return whole.Append(b, 10), nil
	} else {
		x = rounded(x, 'g', SumDigits)
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return b, ErrBeyond
	}
	if x == 0 {
		x = 0 // not -0
	}
	return wire.AppendFloat(b, x), nil
}

// rounded is x rounded to digits in strconv's format fmt ('f': decimal
// places, 'g': significant digits): the nearest such decimal to the binary
// value x holds (of two as near, the even one).
func rounded(x float64, fmt byte, digits int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, fmt, digits, 64), 64)
	return r
}

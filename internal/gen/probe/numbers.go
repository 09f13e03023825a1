package probe

import (
	"math"
	"reflect"
	"strconv"
)

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
		_, b := crossing(accepts, min, seed, false)
		lo = strconv.FormatInt(b, 10)
	}
	if !accepts(max) {
		a, _ := crossing(accepts, seed, max, true)
		hi = strconv.FormatInt(a, 10)
	}
	return lo, hi, true
}

// crossing narrows [a, b] to the two neighbours where accepts changes
// its answer: accepts(a) is known to be atA and accepts(b) its opposite,
// and the predicate changes its answer once between them. It returns the
// last value answered like a and the first answered like b.
func crossing(accepts func(int64) bool, a, b int64, atA bool) (int64, int64) {
	for uint64(b)-uint64(a) > 1 {
		mid := midpoint(a, b)
		if accepts(mid) == atA {
			a = mid
		} else {
			b = mid
		}
	}
	return a, b
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
		_, b := crossing(acceptsKey, key(-limit), key(seed), false)
		lo = format(val(b))
	}
	if !accepts(limit) {
		a, _ := crossing(acceptsKey, key(seed), key(limit), true)
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

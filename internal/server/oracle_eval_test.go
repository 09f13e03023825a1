package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The list query language against an oracle: random records (nulls
// included), random filters and orders; every answer must equal the same
// query evaluated in Go over the same records, and walking by cursor must
// equal walking by offset, every record exactly once.

// eval evaluates f on a record: the semantics docs/api.md gives the
// filters, with null a value like any other.
func (f *oracleFilter) eval(t *testing.T, r oracleRecord) bool {
	switch f.op {
	case "and":
		for _, k := range f.kids {
			if !k.eval(t, r) {
				return false
			}
		}
		return true
	case "or":
		for _, k := range f.kids {
			if k.eval(t, r) {
				return true
			}
		}
		return false
	case "not":
		return !f.kids[0].eval(t, r)
	}
	v := r.values[f.member.name]
	want := func(x any) any { return goValue(t, f.member.typ, jsonNumber(x)) }
	switch f.op {
	case "exact", "eq":
		return equalValues(v, want(f.value))
	case "ne":
		return !equalValues(v, want(f.value))
	case "is_null":
		return (v == nil) == f.value.(bool)
	case "in", "nin":
		in := false
		for _, x := range f.value.([]any) {
			in = in || equalValues(v, want(x))
		}
		return in == (f.op == "in")
	case "contains":
		return v != nil && strings.Contains(asciiLower(v.(string)), asciiLower(f.value.(string)))
	case "prefix":
		return v != nil && strings.HasPrefix(v.(string), f.value.(string))
	}
	if v == nil {
		return false
	}
	c := compareValues(v, want(f.value))
	switch f.op {
	case "gt":
		return c > 0
	case "gte":
		return c >= 0
	case "lt":
		return c < 0
	}
	return c <= 0
}

// jsonNumber turns a Go number into the json.Number an answer would hold.
func jsonNumber(x any) any {
	switch n := x.(type) {
	case int:
		return json.Number(strconv.Itoa(n))
	case float64:
		return json.Number(strconv.FormatFloat(n, 'g', -1, 64))
	}
	return x
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 32
		}
		return r
	}, s)
}

func equalValues(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareValues(a, b) == 0
}

// compareValues orders two non-null values of one type: text by code point.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case int64:
		return cmpOrdered(x, b.(int64))
	case float64:
		return cmpOrdered(x, b.(float64))
	case bool:
		return cmpOrdered(boolInt(x), boolInt(b.(bool)))
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	panic(fmt.Sprintf("no order for %T", a))
}

func cmpOrdered[T int64 | float64 | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expect is the oracle's answer: the ids of the matching records in order.
// A null is greater than every value; the id breaks ties.
func (q *oracleQuery) expect(records []oracleRecord) []string {
	var match []oracleRecord
	for _, r := range records {
		if q.filter == nil || q.filter.eval(nil, r) {
			match = append(match, r)
		}
	}
	slices.SortFunc(match, func(a, b oracleRecord) int {
		for _, k := range q.keys {
			var c int
			if k.member == "" {
				c = strings.Compare(a.id, b.id)
			} else {
				av, bv := a.values[k.member], b.values[k.member]
				switch {
				case av == nil && bv == nil:
				case av == nil:
					c = 1
				case bv == nil:
					c = -1
				default:
					c = compareValues(av, bv)
				}
			}
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	ids := []string{}
	for _, r := range match {
		ids = append(ids, r.id)
	}
	return ids
}

func queryText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

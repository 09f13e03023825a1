package wire

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A customer body as clients send it. The choice between this package's
// object reader and encoding/json is made on these benchmarks (README,
// "Hand-written code kept"); the reader also does what encoding/json does
// not: members in order, a member given twice refused, byte offsets in
// syntax errors, NUL and unpaired surrogates seen rather than replaced.
var customerBody = []byte(`{"id":"cus_4f2a9c","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com",
"phone":"+44 20 7946 0958","company":"Analytical Engines Ltd","status":"active","notes":"Prefers \"email\" \u00e9",
"address":"12 St James's Square","city":"London","postcode":"SW1Y 4JH","country":"GB",
"credit_limit":25000,"tax_exempt":false,"metadata":{"source":"import","batch":"2026-11"}}`)

func BenchmarkObjectReader(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(customerBody)))
	for b.Loop() {
		members, err := ParseObject(customerBody)
		if err != nil || len(members) != 15 {
			b.Fatal(err, len(members))
		}
		for _, m := range members {
			if m.Name == "first_name" {
				if _, err := String(m.Value); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// A body of a megabyte of distinct members (90,000): the reader's cost
// grows with the members, not with their square (it took 11 s when each
// name was compared with every one before it).
func BenchmarkObjectManyMembers(b *testing.B) {
	var body []byte
	body = append(body, '{')
	for i := range 90000 {
		if i > 0 {
			body = append(body, ',')
		}
		body = fmt.Appendf(body, `"m%d":1`, i)
	}
	body = append(body, '}')
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if members, err := ParseObject(body); err != nil || len(members) != 90000 {
			b.Fatal(err, len(members))
		}
	}
}

func BenchmarkObjectEncodingJSON(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(customerBody)))
	for b.Loop() {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(customerBody, &members); err != nil || len(members) != 15 {
			b.Fatal(err, len(members))
		}
		var s string
		if err := json.Unmarshal(members["first_name"], &s); err != nil {
			b.Fatal(err)
		}
	}
}

// An integer member as clients mostly send it: plain digits, read without
// allocating.
func BenchmarkInt64Plain(b *testing.B) {
	b.ReportAllocs()
	v := []byte(`1234567`)
	for b.Loop() {
		if n, err := Int64(v); err != nil || n != 1234567 {
			b.Fatal(n, err)
		}
	}
}

// An integer member written with a fraction of zeros and an exponent.
func BenchmarkInt64Decimal(b *testing.B) {
	b.ReportAllocs()
	v := []byte(`12345678901234567.89e2`)
	for b.Loop() {
		if _, err := Int64(v); err != nil {
			b.Fatal(err)
		}
	}
}

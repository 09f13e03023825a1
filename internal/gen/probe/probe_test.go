package probe

import (
	"math"
	"regexp"
	"slices"
	"testing"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

type schema struct {
	ent.Schema
	fields []ent.Field
}

func (s schema) Fields() []ent.Field { return s.fields }

func describe(t *testing.T, fields ...ent.Field) map[string]Field {
	t.Helper()
	d, err := Describe("T", schema{fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Field{}
	for _, f := range d.Fields {
		out[f.Name] = f
	}
	return out
}

func intp(n int) *int { return &n }

// Every validator ent's builders make is read back as the bound it
// enforces.
func TestDescribe(t *testing.T) {
	got := describe(t,
		field.String("plain"),
		field.String("name").NotEmpty().MaxLen(200),
		field.String("code").MinLen(3).MaxLen(10).MinLen(4),
		field.String("runes").MinRuneLen(2).MaxRuneLen(5),
		field.String("isbn").Match(regexp.MustCompile(`^[0-9]{13}$`)),
		field.Int("pages").Positive().Max(10000),
		field.Int64("delta").Range(-5, 5),
		field.Int8("small").NonNegative(),
		field.Float("price").Min(0.5),
		field.Float("rate").Positive(),
		field.Float("ratio").Range(-1.5, 2.25),
		field.Uint16("port").Min(1024),
	)
	if _, ok := got["plain"]; ok {
		t.Error("a field without validators is described")
	}
	want := map[string]Field{
		"name":  {Name: "name", MinLen: intp(1), MaxLen: intp(200)},
		"code":  {Name: "code", MinLen: intp(4), MaxLen: intp(10)},
		"runes": {Name: "runes", MinLen: intp(2), MaxLen: intp(5)},
		"isbn":  {Name: "isbn", Patterns: []string{`^[0-9]{13}$`}},
		"pages": {Name: "pages", Min: "1", Max: "10000"},
		"delta": {Name: "delta", Min: "-5", Max: "5"},
		"small": {Name: "small", Min: "0"},
		"price": {Name: "price", Min: "0.5"},
		"rate":  {Name: "rate", Min: "1e-06"},
		"ratio": {Name: "ratio", Min: "-1.5", Max: "2.25"},
		"port":  {Name: "port", Min: "1024"},
	}
	for name, w := range want {
		g := got[name]
		if g.Name != w.Name || !eqInt(g.MinLen, w.MinLen) || !eqInt(g.MaxLen, w.MaxLen) || !slices.Equal(g.Patterns, w.Patterns) ||
			g.Min != w.Min || g.Max != w.Max || len(g.Unsupported) > 0 {
			t.Errorf("%s: got %+v, want %+v", name, g, w)
		}
	}
}

func eqInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// A validator no builder of ent made is named as unsupported.
func TestDescribeUnsupported(t *testing.T) {
	got := describe(t, field.String("odd").Validate(func(string) error { return nil }),
		field.Int("even").Validate(func(int) error { return nil }))
	for _, name := range []string{"odd", "even"} {
		if len(got[name].Unsupported) != 1 {
			t.Errorf("%s: want one unsupported validator, got %+v", name, got[name])
		}
	}
}

func TestSearchBoundsAtTheEdges(t *testing.T) {
	lo, hi, ok := searchInts(func(n int64) bool { return n >= math.MinInt64+1 }, math.MinInt64, math.MaxInt64)
	if !ok || lo != "-9223372036854775807" || hi != "" {
		t.Errorf("ints: %q %q %v", lo, hi, ok)
	}
	lo, hi, ok = searchFloats(func(f float64) bool { return f <= 1e300 }, 64)
	if !ok || lo != "" || hi != "1e+300" {
		t.Errorf("floats: %q %q %v", lo, hi, ok)
	}
	if _, _, ok := searchInts(func(int64) bool { return false }, -10, 10); ok {
		t.Error("a validator accepting nothing has bounds")
	}
}

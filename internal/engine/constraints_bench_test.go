package engine

import (
	"regexp"
	"testing"

	"records/internal/wire"
)

// A body of five members, as a create sends it.
var benchBody = []struct {
	name  string
	value []byte
}{
	{"isbn", []byte(`"9780306406157"`)}, {"code", []byte(`"QA76.73"`)}, {"status", []byte(`"published"`)},
	{"pages", []byte(`320`)}, {"price", []byte(`24.5`)},
}

// benchInput decodes the five members as the generated code does, with
// (rules) or without the schema's rules.
type benchInput struct {
	Isbn, Code, Status wire.Field[string]
	Pages              wire.Field[int64]
	Price              wire.Field[float64]
}

var (
	benchIsbn   = Text{Required: true, Patterns: []*regexp.Regexp{regexp.MustCompile(`^[0-9]{13}$`)}}
	benchCode   = Text{Required: true, MinLen: 1, MaxLen: 12}
	benchStatus = Text{Required: true, Enum: []string{"draft", "published", "withdrawn"}}
	benchPages  = Number[int64]{Min: 1, HasMin: true, Max: 10000, HasMax: true}
	benchPrice  = Number[float64]{Min: 0, HasMin: true}
)

func (in *benchInput) decode(name string, v []byte, rules bool) error {
	var err error
	switch name {
	case "isbn":
		if err = in.Isbn.Decode(v, wire.String); err == nil && rules {
			err = benchIsbn.Check(&in.Isbn)
		}
	case "code":
		if err = in.Code.Decode(v, wire.String); err == nil && rules {
			err = benchCode.Check(&in.Code)
		}
	case "status":
		if err = in.Status.Decode(v, wire.String); err == nil && rules {
			err = benchStatus.Check(&in.Status)
		}
	case "pages":
		if err = in.Pages.Decode(v, wire.Int64); err == nil && rules {
			err = benchPages.Check(&in.Pages)
		}
	case "price":
		if err = in.Price.Decode(v, wire.Float64); err == nil && rules {
			err = benchPrice.Check(&in.Price)
		}
	}
	return err
}

// What the schema's rules add to reading a create of five members: the
// checks alone, which allocate nothing (compare with a create's whole
// cost, BenchmarkWrites in bench/baseline).
func BenchmarkDecodeFiveMembers(b *testing.B) {
	for _, rules := range []bool{false, true} {
		name := "plain"
		if rules {
			name = "validated"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var in benchInput
				for _, m := range benchBody {
					if err := in.decode(m.name, m.value, rules); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

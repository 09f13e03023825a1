package policy

import (
	"strings"
	"testing"
)

// FuzzParse: any file is parsed and checked without a panic, and every
// mistake is reported as file:line.
func FuzzParse(f *testing.F) {
	f.Add(design)
	f.Add("roles:\n  r:\n    \"*\": {read: {filter: {and: [{id: {in: [a, b]}}, {not: {caseName: {prefix: x}}}]}}}\n")
	f.Add("roles:\n  r:\n    customers:\n      create: {presets: {age: 3}, check: {age: {gte: 1.5e3}}}\n")
	f.Add("roles: {r: {cases: {update: {filter: {resolver: {in: \"$auth.claims.g\"}}}}}}\n")
	f.Add("roles:\n  r: &a\n    cases: *a\n")
	f.Fuzz(func(t *testing.T, file string) {
		p, err := Parse("p.yaml", []byte(file))
		if err == nil {
			err = p.Check(catalog)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "p.yaml:") {
					t.Fatalf("a mistake without its place: %q", line)
				}
			}
			return
		}
		for _, name := range p.Names() {
			for res := range p.Roles[name].Resources {
				for _, r := range p.Roles[name].Resources[res] {
					if r.Filter != nil {
						r.Filter.Fill(&Vars{Sub: "s", Claims: map[string][]byte{"g": []byte(`["a"]`)}})
					}
				}
			}
		}
	})
}

package gen

import (
	"slices"
	"strings"
	"testing"
)

// shelfModel is an API of one resource, Shelf, with the member label
// described by fn: the document the generator renders for it.
func shelfDocument(t *testing.T, fn func(label *fieldView)) []byte {
	t.Helper()
	r := &resourceView{Name: "Shelf", Var: "shelf", Type: "Shelf", Plural: "shelves", Object: "shelf", Table: "shelves"}
	r.ID = &fieldView{Member: "id", GoName: "ID", ColumnName: "id", Kind: "string", GoType: "string", Convert: "ID", IsID: true}
	label := &fieldView{Member: "label", GoName: "Label", ColumnName: "label", Kind: "string", GoType: "string", Convert: "String", Input: "String", Pointer: true}
	count := &fieldView{Member: "count", GoName: "Count", ColumnName: "count", Kind: "integer", GoType: "int64", Convert: "Int64", Input: "Int64", Pointer: true}
	fn(label)
	r.Fields = []*fieldView{r.ID, label, count}
	m := &apiModel{Resources: []*resourceView{r}}
	for _, g := range genericOps(r) {
		m.Ops = append(m.Ops, g.opView)
		m.Routes = append(m.Routes, &routeView{Method: g.route.Method, Path: g.route.Path, Op: g.opView})
	}
	doc, err := renderOpenAPI(m)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The guard counts each tightening of a member's rule as breaking, and
// loosening as not.
func TestBreakingTightenings(t *testing.T) {
	base := func(f *fieldView) {
		f.MinLen, f.MaxLen, f.Enum = 1, 20, []string{"open", "closed", "archived"}
	}
	before := shelfDocument(t, base)
	cases := []struct {
		name string
		edit func(f *fieldView)
		says string // "" when not breaking
	}{
		{"unchanged", func(f *fieldView) {}, ""},
		{"required", func(f *fieldView) { f.Required, f.Pointer = true, false }, "is required now"},
		// An answer that can be null no more retypes clients' code (a
		// pointer becomes a value), and the rows holding null fail it.
		{"required with a default", func(f *fieldView) { f.Required, f.Pointer, f.Default, f.DefaultJS = true, false, `"open"`, `"open"` }, "changes type"},
		{"enum value removed", func(f *fieldView) { f.Enum = []string{"open", "closed"} }, `no longer takes "archived"`},
		{"enum value added", func(f *fieldView) { f.Enum = append(f.Enum, "lost") }, ""},
		{"larger MinLen", func(f *fieldView) { f.MinLen = 2 }, "needs at least 2 characters now"},
		{"smaller MaxLen", func(f *fieldView) { f.MaxLen = 10 }, "takes at most 10 characters now"},
		{"larger MaxLen", func(f *fieldView) { f.MaxLen = 40 }, ""},
		{"new pattern", func(f *fieldView) { f.Patterns = []string{"^[a-z]+$"} }, "must match ^[a-z]+$ now"},
		{"immutable", func(f *fieldView) { f.Immutable = true }, "is immutable now"},
		{"comment", func(f *fieldView) { f.Comment = "Where it stands." }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := shelfDocument(t, func(f *fieldView) { base(f); c.edit(f) })
			breaks, err := apiBreaks(before, after)
			if err != nil {
				t.Fatal(err)
			}
			if c.says == "" {
				if len(breaks) > 0 {
					t.Fatalf("not breaking, yet: %v", breaks)
				}
				return
			}
			if !slices.ContainsFunc(breaks, func(b string) bool { return strings.Contains(b, c.says) && strings.Contains(b, "label of Shelf") }) {
				t.Fatalf("want a break saying %q, got %v", c.says, breaks)
			}
		})
	}
	// Numbers: a greater minimum, a smaller maximum.
	num := func(min, max string) []byte {
		return shelfDocument(t, func(f *fieldView) {
			f.Kind, f.GoType, f.Convert, f.Input, f.Min, f.Max = "integer", "int64", "Int64", "Int64", min, max
		})
	}
	breaks, err := apiBreaks(num("0", "100"), num("1", "50"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"needs at least 1 now", "takes at most 50 now"} {
		if !slices.ContainsFunc(breaks, func(b string) bool { return strings.Contains(b, want) }) {
			t.Errorf("numbers: want %q in %v", want, breaks)
		}
	}
	if breaks, _ := apiBreaks(num("1", "50"), num("0", "100")); len(breaks) > 0 {
		t.Errorf("loosened numbers break: %v", breaks)
	}
}

// The patterns of a number written as text are no member's rule.
func TestNumberTextIsNoRule(t *testing.T) {
	for _, p := range []string{`^\s*-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\s*$`, `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`} {
		if !numberText.MatchString(p) {
			t.Errorf("%s is taken for a member's rule", p)
		}
	}
	if numberText.MatchString(`^[0-9]{13}$`) {
		t.Error("a member's pattern is taken for a number's text")
	}
}

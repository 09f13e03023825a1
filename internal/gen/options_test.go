package gen

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"

	"records/internal/annotation"
	"records/internal/gen/probe"
)

// An option the API cannot honour is refused, naming it; the field's
// position in the schema comes with it (fillFields).
func TestUnsupportedOptions(t *testing.T) {
	var email *gen.Field
	for _, n := range repoGraph(t).Nodes {
		for _, f := range n.Fields {
			if n.Name == "Customer" && f.Name == "email" {
				email = f
			}
		}
	}
	text := func() *gen.Field { f := *email; return &f }
	cases := []struct {
		name   string
		field  *gen.Field
		bounds probe.Field
		says   string
	}{
		{"a Validate function", text(), probe.Field{Unsupported: []string{"records/schema.Book.Fields.func1"}}, "the validator records/schema.Book.Fields.func1 is not supported"},
		{"UpdateDefault", func() *gen.Field { f := text(); f.UpdateDefault = true; return f }(), probe.Field{}, "UpdateDefault is not supported"},
	}
	for _, c := range cases {
		v, err := newField(c.field, annotation.Field{})
		if err == nil {
			err = applyOptions(v, c.field, c.bounds)
		}
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: want %q, got %v", c.name, c.says, err)
		}
	}
	cfg := DefaultConfig()
	cfg.Root = "../.."
	graph := repoGraph(t)
	for _, n := range graph.Nodes {
		if n.Name == "Customer" {
			if pos := fieldPos(cfg, n, "email"); !strings.HasPrefix(pos, "schema/customer.go:") {
				t.Errorf("the position of Customer.email: %q", pos)
			}
		}
	}
}

package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate and check refuse a policies file that names what the schema
// does not have, with its file and line; a file that fits is embedded.
func TestPoliciesAreCheckedAgainstTheSchema(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Root: root, Policies: "schema/policies.yaml"}
	resources := []*resourceView{{Plural: "cases", Fields: []*fieldView{
		{Member: "id", Kind: "string"}, {Member: "version", Kind: "integer"}, {Member: "resolver", Kind: "string"}}}}
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(root, "schema", "policies.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if text, err := readPolicies(cfg, resources); err != nil || text != "" {
		t.Fatalf("no file: %q %v", text, err)
	}
	for _, c := range []struct{ file, want string }{
		{"roles:\n  agent:\n    casez: {read: {}}\n", `schema/policies.yaml:3: role "agent": no resource "casez"`},
		{"roles:\n  agent:\n    cases:\n      read: {members: [resolvr]}\n", `schema/policies.yaml:4: cases read: no member "resolvr"`},
		{"roles:\n  agent:\n    cases:\n      read:\n        filter: {resolver: {like: x}}\n", `schema/policies.yaml:5: filter.resolver.like: unknown operator "like"`},
	} {
		write(c.file)
		if _, err := readPolicies(cfg, resources); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.file, err, c.want)
		}
	}
	good := "roles:\n  agent:\n    cases:\n      read: {filter: {resolver: \"$auth.sub\"}}\n"
	write(good)
	text, err := readPolicies(cfg, resources)
	if err != nil || text != good {
		t.Fatalf("a good file: %q %v", text, err)
	}
	src, err := renderPolicies(&apiModel{Policies: text, PoliciesFile: cfg.Policies})
	if err != nil || !strings.Contains(string(src), `const PoliciesFile = "schema/policies.yaml"`) {
		t.Fatalf("rendered: %s %v", src, err)
	}
}

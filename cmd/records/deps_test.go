package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The service's binary links neither ent's generated code nor the migration
// engine under ent's schema package (Atlas, with HCL and its evaluator): the
// first's compile would be most of every rebuild after a spec edit (README,
// the spec-edit loop); the second is megabytes of code, initialised and
// resident in every server, for nothing the server does. The resources
// declare the records' structs, the token store runs its own SQL, and the
// unique constraints a conflict names are generated beside the migrations.
func TestServiceLinksNeitherEntNorAtlas(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "records/ent" || strings.HasPrefix(pkg, "records/ent/") || pkg == "records/schema" ||
			strings.HasPrefix(pkg, "ariga.io/atlas") || pkg == "entgo.io/ent/dialect/sql/schema" {
			t.Errorf("cmd/records links %s", pkg)
		}
	}
}

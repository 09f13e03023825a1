package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The service's binary does not link ent's generated client: its compile
// would be most of every rebuild after a spec edit (README, the spec-edit
// loop). The handlers declare the records' structs, the token store runs its
// own SQL; only ent's table list (ent/migrate) is linked.
func TestServiceDoesNotLinkEntClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if (pkg == "records/ent" || strings.HasPrefix(pkg, "records/ent/") || pkg == "records/schema") && pkg != "records/ent/migrate" {
			t.Errorf("cmd/records links %s; the service must reach ent only through ent/migrate", pkg)
		}
	}
}

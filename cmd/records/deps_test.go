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
// Nor gRPC, which the SDK's OTLP exporter linked for the same cost
// (internal/tracing exports over OTLP/HTTP itself).
func TestServiceLinksNeitherEntNorAtlasNorGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "records/ent" || strings.HasPrefix(pkg, "records/ent/") || pkg == "records/schema" ||
			strings.HasPrefix(pkg, "ariga.io/atlas") || pkg == "entgo.io/ent/dialect/sql/schema" ||
			strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "go.opentelemetry.io/proto/") {
			t.Errorf("cmd/records links %s", pkg)
		}
	}
}

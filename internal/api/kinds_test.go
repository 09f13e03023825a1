package api

import (
	"slices"
	"testing"

	"records/internal/gen"
)

// The route table's kinds (the generator's language) and the runtime's
// implementations must name the same set.
func TestKindsAgreeWithTheGenerator(t *testing.T) {
	var runtime []string
	for _, k := range Kinds {
		runtime = append(runtime, string(k))
	}
	if !slices.Equal(runtime, gen.Kinds()) {
		t.Fatalf("api.Kinds %v, gen.Kinds %v", runtime, gen.Kinds())
	}
}

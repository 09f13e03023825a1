package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The collector's rate and the soft limit are the service's defaults only
// where the operator has set neither GOGC nor GOMEMLIMIT.
func TestTuneGCSetsItsDefaultsUnlessTheOperatorDid(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("GOGC unset: the collector's rate is %d, want 200", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != 48<<20 {
		t.Errorf("GOMEMLIMIT unset: the soft limit is %d, want %d", got, 48<<20)
	}

	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: tuneGC changed the collector's rate to %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: tuneGC changed the soft limit to %d", got)
	}
}

package replica

import (
	"testing"
	"time"
)

// A replica's lag is the time since the first of the primary's positions
// it has not reached.
func TestLagFromPositions(t *testing.T) {
	s := newSamples(4)
	t0 := time.Unix(1000, 0)
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	if got := s.lag(at(0), 0); got != 0 {
		t.Fatalf("nothing known: %v", got)
	}
	for i, lsn := range []uint64{100, 200, 200, 300, 400, 500} {
		s.add(at(float64(i)), lsn)
	}
	// Kept: 200@2, 300@3, 400@4, 500@5.
	now := at(6)
	for replayed, want := range map[uint64]time.Duration{
		500: 0,
		999: 0,
		400: 1 * time.Second, // 500, reached at 5, is missing
		350: 2 * time.Second, // 400, reached at 4, is missing
		200: 3 * time.Second,
		100: 4 * time.Second, // behind everything kept
	} {
		if got := s.lag(now, replayed); got != want {
			t.Errorf("replayed %d: lag %v, want %v", replayed, got, want)
		}
	}
}

package replica

import (
	"sync"
	"time"
)

// A replica's lag is measured in time, from positions: the poller keeps the
// primary's position in its log at each poll, and a replica that has
// replayed up to a position is as far behind as the newest poll whose
// position it has reached — none behind when it has reached the newest,
// more than the whole span when it has reached none. An idle primary
// writes nothing, so an idle replica is caught up, where the time of its
// last replayed transaction would have it drift behind.

// samples are the primary's positions at the last polls, oldest first in
// a ring.
type samples struct {
	mu    sync.Mutex
	times []time.Time
	lsns  []uint64
	start int // the oldest
	n     int
}

func newSamples(size int) *samples {
	return &samples{times: make([]time.Time, size), lsns: make([]uint64, size)}
}

// add keeps the primary's position at t.
func (s *samples) add(t time.Time, lsn uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := (s.start + s.n) % len(s.times)
	if s.n == len(s.times) {
		s.start = (s.start + 1) % len(s.times)
	} else {
		s.n++
	}
	s.times[i], s.lsns[i] = t, lsn
}

// lag is how far behind the primary, at now, a replica that has replayed
// up to replayed is.
func (s *samples) lag(now time.Time, replayed uint64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return 0 // nothing known of the primary yet
	}
	newest := (s.start + s.n - 1) % len(s.times)
	if s.lsns[newest] <= replayed {
		return 0
	}
	// The newest position reached; the one after it is where the replica
	// falls short, and it is behind since then.
	for k := s.n - 2; k >= 0; k-- {
		i := (s.start + k) % len(s.times)
		if s.lsns[i] <= replayed {
			return now.Sub(s.times[(i+1)%len(s.times)])
		}
	}
	return now.Sub(s.times[s.start])
}

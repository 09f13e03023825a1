//go:build linux && race

package sqlitemutex

import "sync/atomic"

// setID sets the holder of m atomically, so that the race detector sees
// the recursion check's read ordered with it (see mutex).
func setID(m *mutex, id int32) { atomic.StoreInt32(&m.id, id) }

//go:build linux && !race

package sqlitemutex

// setID sets the holder of m (see mutex: only the holder writes it).
func setID(m *mutex, id int32) { m.id = id }

package spec

// The bounds of a page: limit is 1 to MaxLimit, DefaultLimit when absent.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

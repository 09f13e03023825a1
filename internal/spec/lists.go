package spec

// The bounds of a page: limit is 1 to MaxLimit, DefaultLimit when absent.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// MaxBulk is the most records one bulk create takes.
const MaxBulk = 1000

// MaxChildren bounds the children an expansion answers per record.
const MaxChildren = 1000

// MaxWebhookDescription is the most characters a webhook's description holds.
const MaxWebhookDescription = 1000

// MaxOrderKeys bounds the keys of a list's order_by.
const MaxOrderKeys = 8

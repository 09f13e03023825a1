package spec

// The bounds of a page: limit is 1 to MaxLimit, DefaultLimit when absent.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// MaxOffset is the largest offset a page takes (2³¹ − 1); a cursor goes
// anywhere.
const MaxOffset = 1<<31 - 1

// MaxBulk is the most records one bulk create takes.
const MaxBulk = 1000

// MaxChildren bounds the children an expansion answers per record.
const MaxChildren = 1000

// MaxWebhookDescription is the most characters a webhook's description holds.
const MaxWebhookDescription = 1000

// MaxOrderKeys bounds the keys of a list's order_by.
const MaxOrderKeys = 8

// MaxIndexedText is the most bytes a text member the database indexes (a
// sortable or unique member, or one in an index) holds. PostgreSQL refuses
// an index entry over 2,704 bytes; this leaves room beside the text for the
// team and an id of 255 characters, so no write fails on an index, and
// both databases take the same texts.
const MaxIndexedText = 1000

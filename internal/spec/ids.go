package spec

import "github.com/google/uuid"

// NewID makes an id: a UUIDv7, so ids made by the server sort by creation
// time and never collide across teams or instances. Records, tokens and
// (compacted, with a prefix) webhooks and deliveries take theirs from it.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

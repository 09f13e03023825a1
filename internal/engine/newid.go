package engine

import "github.com/google/uuid"

// NewID makes a record id: a UUIDv7, so ids made by the server sort by
// creation time and never collide across teams.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Package tenant carries the caller's team through a context. Every record
// belongs to a team; the ent schema's interceptors and hooks read the team
// from here to scope every query and write, and refuse to run without one.
package tenant

import (
	"context"
	"errors"
)

// Key is the context key of the team. A context type that carries a team
// among other values (auth's principal) answers it itself, so a request
// adds one value to its context rather than two.
type Key struct{}

// ErrNoTeam is returned when records are read or written without a team in
// the context: scoping fails closed.
var ErrNoTeam = errors.New("tenant: no team in the context")

// ErrOtherTeam is returned when a write names a team other than the context's.
var ErrOtherTeam = errors.New("tenant: a record may not be written for another team")

// WithTeam returns a context acting for the team with number team.
func WithTeam(ctx context.Context, team int) context.Context {
	return context.WithValue(ctx, Key{}, team)
}

// Team returns the context's team number.
func Team(ctx context.Context) (int, bool) {
	t, ok := ctx.Value(Key{}).(int)
	return t, ok
}

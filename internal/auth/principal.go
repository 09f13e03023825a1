// Package auth issues and checks API tokens. A token belongs to a team and
// has a scope; only a hash of its secret is stored, and the secret is
// compared in constant time.
package auth

import "context"

// Scope is what a token may do.
type Scope string

// The scopes.
const (
	Read  Scope = "read"  // read only: every write answers 403
	Write Scope = "write" // read and write
)

// Principal is the caller a request acts for.
type Principal struct {
	TokenID   string
	TokenName string
	Team      int
	Scope     Scope
}

// CanWrite tells whether the principal may write.
func (p Principal) CanWrite() bool { return p.Scope == Write }

// Key is the context key of the principal, whose value is a *Principal (a
// pointer, so that looking it up allocates nothing). The request's context
// type (package edge) answers it, and tenant's key with the principal's team.
type Key struct{}

// FromContext returns the request's principal.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(Key{}).(*Principal)
	if !ok {
		return Principal{}, false
	}
	return *p, true
}

// Package auth issues and checks API tokens. A token belongs to a team and
// has a scope; only a hash of its secret is stored, and the secret is
// compared in constant time.
package auth

import (
	"context"

	"records/internal/tenant"
)

// Scope is what a token may do.
type Scope string

// The scopes.
const (
	Read  Scope = "read"  // read only: every write answers 403
	Write Scope = "write" // read and write
)

// Principal is the caller a request acts for.
type Principal struct {
	TokenID string
	Team    int
	Scope   Scope
}

// CanWrite tells whether the principal may write.
func (p Principal) CanWrite() bool { return p.Scope == Write }

// Key is the context key of the principal. A context type that carries
// the principal among other values answers it itself (see WithPrincipal).
type Key struct{}

// principalCtx carries the principal, and answers its team as the tenant's:
// one context value instead of two.
type principalCtx struct {
	context.Context
	p Principal
}

func (c *principalCtx) Value(key any) any {
	switch key.(type) {
	case Key:
		return c.p
	case tenant.Key:
		return c.p.Team
	}
	return c.Context.Value(key)
}

// WithPrincipal returns a context acting for p: its team scopes every
// record the request touches.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return &principalCtx{Context: ctx, p: p}
}

// FromContext returns the request's principal.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(Key{}).(Principal)
	return p, ok
}

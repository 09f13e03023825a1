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

// Principal is the caller a request acts for: an API token, or the
// subject of a JWT an identity provider signed.
type Principal struct {
	// TokenID identifies the caller in events and rate limits: an API
	// token's id, or "jwt:" and the JWT's subject.
	TokenID   string
	TokenName string
	Team      int
	TeamName  string
	Scope     Scope
	// Role names the caller's policies (DESIGN §15); "" and "admin" may
	// do everything. Roles are every role a JWT grants, Role among them.
	Role  string
	Roles []string
	// Subject is who the policies see as $auth.sub.
	Subject string
	// Via is how the caller signed in: ViaToken or ViaJWT.
	Via string
	// Claims are a JWT's claims as JSON, by name, for $auth.claims.NAME.
	Claims map[string][]byte
}

// How a caller signed in.
const (
	ViaToken = "token"
	ViaJWT   = "jwt"
)

// AdminRole is the built-in role that may do everything.
const AdminRole = "admin"

// CanWrite tells whether the principal may write.
func (p Principal) CanWrite() bool { return p.Scope == Write }

// Admin tells whether the principal's role is the built-in admin, whom no
// policy narrows.
func (p *Principal) Admin() bool { return p.Role == "" || p.Role == AdminRole }

// PrincipalOf returns a pointer to the request's principal, without copying
// it; nil when the context has none. It must not be changed.
func PrincipalOf(ctx context.Context) *Principal {
	p, _ := ctx.Value(Key{}).(*Principal)
	return p
}

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

// Package jwtauth verifies the JWTs an identity provider signs (DESIGN
// §15): the signature against the provider's key set (JWKS, found by
// OpenID Connect discovery or named), the algorithm (RS256, ES256, EdDSA
// only), exp (required), nbf and iat with a minute's leeway, aud and iss;
// then it reads the team, role and subject the token carries. JOSE is
// github.com/go-jose/go-jose/v4's, discovery github.com/coreos/go-oidc/v3's.
//
// A verified token is kept, by the SHA-256 of its text, until it expires,
// so a JWT costs a request what an API token costs.
package jwtauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"records/internal/auth"
	"records/internal/policy"
)

// Config is how the provider's tokens are verified; flags fill it.
type Config struct {
	// Issuer, when set, is the provider's issuer URL: its key set is found
	// by discovery (Issuer/.well-known/openid-configuration), and a
	// token's iss must equal it.
	Issuer string
	// JWKSURL names the key set directly (without Issuer, iss is not
	// checked).
	JWKSURL string
	// Audience must be among a token's aud.
	Audience string
	// TeamClaim holds the team's name; RoleClaim the role, or roles.
	TeamClaim, RoleClaim string
	// Client fetches discovery and the key set; http.DefaultClient if nil.
	Client *http.Client
	// Now is the clock; time.Now if nil.
	Now func() time.Time
}

// Defaults of the claims.
const (
	DefaultTeamClaim = "records_team"
	DefaultRoleClaim = "records_role"
)

// Leeway is the clock skew allowed on exp, nbf and iat.
const Leeway = 60 * time.Second

// Algorithms are the signature algorithms accepted: none and the HMAC
// ones never (a key set's public key must not become a shared secret).
var Algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}

// Teams finds a team's number by its name, making the team on first use.
type Teams func(ctx context.Context, name string) (int, error)

// Verifier verifies tokens of one provider.
type Verifier struct {
	cfg   Config
	keys  *keySet
	teams Teams

	cache    sync.Map // SHA-256 of the token → *verified
	cacheLen atomic.Int64
	teamIDs  sync.Map // team name → number
}

type verified struct {
	p   auth.Principal
	exp time.Time
}

// maxCached bounds the tokens kept; past it, they are dropped wholesale.
const maxCached = 10000

// Enabled tells whether the configuration names a provider.
func (c Config) Enabled() bool { return c.Issuer != "" || c.JWKSURL != "" }

// New makes a verifier. With an issuer it runs discovery now, so that a
// wrong issuer stops the start; the key set itself is fetched when the
// first token needs it.
func New(ctx context.Context, cfg Config, teams Teams) (*Verifier, error) {
	if cfg.Audience == "" {
		return nil, errors.New("--jwt-audience is required with --oidc-issuer or --jwks-url")
	}
	if cfg.Issuer != "" && cfg.JWKSURL != "" {
		return nil, errors.New("give --oidc-issuer (its discovery names the key set) or --jwks-url, not both")
	}
	if cfg.TeamClaim == "" {
		cfg.TeamClaim = DefaultTeamClaim
	}
	if cfg.RoleClaim == "" {
		cfg.RoleClaim = DefaultRoleClaim
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	url := cfg.JWKSURL
	if cfg.Issuer != "" {
		dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, cfg.Client), 10*time.Second)
		defer cancel()
		provider, err := oidc.NewProvider(dctx, cfg.Issuer)
		if err != nil {
			return nil, fmt.Errorf("--oidc-issuer %s: discovery: %w", cfg.Issuer, err)
		}
		var doc struct {
			JWKS string `json:"jwks_uri"`
		}
		if err := provider.Claims(&doc); err != nil || doc.JWKS == "" {
			return nil, fmt.Errorf("--oidc-issuer %s: discovery names no jwks_uri", cfg.Issuer)
		}
		url = doc.JWKS
	}
	return &Verifier{cfg: cfg, teams: teams, keys: &keySet{url: url, client: cfg.Client, now: cfg.Now}}, nil
}

// Error is a token that does not verify; its text says which check failed
// and never holds the token.
type Error struct{ Check string }

func (e *Error) Error() string { return e.Check }

func invalid(format string, args ...any) error { return &Error{Check: fmt.Sprintf(format, args...)} }

// LooksLikeJWT tells whether a credential is a JWT: three base64url parts
// separated by dots (an API token has none).
func LooksLikeJWT(s string) bool {
	parts, size := 1, 0 // the parts so far, and the current one's length
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			if size == 0 {
				return false
			}
			parts, size = parts+1, 0
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_':
			size++
		default:
			return false
		}
	}
	// An unsigned token (alg none) has an empty third part: still a JWT,
	// refused as one for its algorithm.
	return parts == 3
}

// Verify answers the principal of a token, or an *Error.
func (v *Verifier) Verify(ctx context.Context, token string) (auth.Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := v.cfg.Now()
	if c, ok := v.cache.Load(key); ok {
		c := c.(*verified)
		if now.Before(c.exp) {
			return c.p, nil
		}
		v.cache.Delete(key)
		return auth.Principal{}, invalid("expired: exp was %s", c.exp.Add(-Leeway).UTC().Format(time.RFC3339))
	}
	p, exp, err := v.verify(ctx, token, now)
	if err != nil {
		return auth.Principal{}, err
	}
	if v.cacheLen.Load() >= maxCached {
		v.cache.Clear()
		v.cacheLen.Store(0)
	}
	if _, loaded := v.cache.Swap(key, &verified{p: p, exp: exp}); !loaded {
		v.cacheLen.Add(1)
	}
	return p, nil
}

// verify checks a token the cache does not hold.
func (v *Verifier) verify(ctx context.Context, token string, now time.Time) (auth.Principal, time.Time, error) {
	tok, err := jwt.ParseSigned(token, Algorithms)
	if err != nil {
		if alg := algorithm(token); alg != "" && !accepted(alg) {
			return auth.Principal{}, time.Time{}, invalid("algorithm: %q is not accepted; the token must be signed with RS256, ES256 or EdDSA", alg)
		}
		return auth.Principal{}, time.Time{}, invalid("malformed: not a signed JWT")
	}
	if len(tok.Headers) != 1 {
		return auth.Principal{}, time.Time{}, invalid("malformed: a JWT has one signature")
	}
	keys, err := v.keys.lookup(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return auth.Principal{}, time.Time{}, err
	}
	if _, ok := tok.Headers[0].ExtraHeaders["crit"]; ok {
		return auth.Principal{}, time.Time{}, invalid("crit: the token's header names critical parameters, which this service does not take")
	}
	var all map[string]json.RawMessage
	verifiedBy := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != tok.Headers[0].Algorithm || k.Use != "" && k.Use != "sig" || !k.IsPublic() {
			continue
		}
		// The signature alone first: claims of the wrong type are told
		// apart from a key that does not verify.
		if err := tok.Claims(k.Key, &all); err == nil {
			verifiedBy = true
			break
		}
	}
	if !verifiedBy {
		return auth.Principal{}, time.Time{}, invalid("signature: it does not verify with the identity provider's key %q", tok.Headers[0].KeyID)
	}
	std, err := standardClaims(tok, all)
	if err != nil {
		return auth.Principal{}, time.Time{}, err
	}
	if std.Expiry == nil {
		return auth.Principal{}, time.Time{}, invalid("exp: the token has no expiry, which is required")
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: now}, Leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return auth.Principal{}, time.Time{}, invalid("expired: exp was %s", std.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return auth.Principal{}, time.Time{}, invalid("not yet valid: nbf is %s", std.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return auth.Principal{}, time.Time{}, invalid("iat: issued in the future (%s)", std.IssuedAt.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrInvalidAudience):
		return auth.Principal{}, time.Time{}, invalid("audience: aud does not contain %q", v.cfg.Audience)
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return auth.Principal{}, time.Time{}, invalid("issuer: iss is not %q", v.cfg.Issuer)
	case err != nil:
		return auth.Principal{}, time.Time{}, invalid("claims: %v", err)
	}
	p, err := v.principal(ctx, std, all)
	return p, std.Expiry.Time().Add(Leeway), err
}

// standardClaims reads the registered claims of tok, a verified token
// whose payload is all, naming the first of the wrong type: exp, nbf and iat whole
// seconds since 1970 (within ±2^53), iss, sub and jti strings, aud a
// string or a list of them.
func standardClaims(tok *jwt.JSONWebToken, all map[string]json.RawMessage) (jwt.Claims, error) {
	for _, name := range []string{"exp", "nbf", "iat"} {
		raw, ok := all[name]
		if !ok {
			continue
		}
		var n float64
		if json.Unmarshal(raw, &n) != nil || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return jwt.Claims{}, invalid("%s: must be a whole number of seconds since 1970", name)
		}
	}
	for _, name := range []string{"iss", "sub", "jti"} {
		var s string
		if raw, ok := all[name]; ok && json.Unmarshal(raw, &s) != nil {
			return jwt.Claims{}, invalid("%s: must be a string", name)
		}
	}
	// The signature verified, the payload is read again into the
	// registered claims, not encoded anew from all.
	var std jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&std); err != nil {
		return jwt.Claims{}, invalid("malformed: the claims: %v", err)
	}
	return std, nil
}

// principal reads the caller a verified token names.
func (v *Verifier) principal(ctx context.Context, std jwt.Claims, all map[string]json.RawMessage) (auth.Principal, error) {
	if std.Subject == "" {
		return auth.Principal{}, invalid("sub: the token names no subject")
	}
	var team string
	if raw, ok := all[v.cfg.TeamClaim]; !ok || json.Unmarshal(raw, &team) != nil || !teamName(team) {
		return auth.Principal{}, invalid("team: the claim %s must be the team's name (1 to %d characters, none a control character)", v.cfg.TeamClaim, maxTeamName)
	}
	roles, err := readRoles(all[v.cfg.RoleClaim])
	if err != nil {
		return auth.Principal{}, invalid("role: the claim %s %v", v.cfg.RoleClaim, err)
	}
	id, err := v.team(ctx, team)
	if err != nil {
		return auth.Principal{}, err
	}
	claims := make(map[string][]byte, len(all))
	for k, raw := range all {
		claims[k] = raw
	}
	return auth.Principal{
		TokenID:   "jwt:" + team + ":" + std.Subject,
		TokenName: std.Subject,
		Team:      id,
		TeamName:  team,
		Scope:     auth.Write,
		Role:      roles[0],
		Roles:     roles,
		Subject:   std.Subject,
		Via:       auth.ViaJWT,
		Claims:    claims,
	}, nil
}

// maxTeamName bounds a team's name, in characters.
const maxTeamName = 200

// teamName tells a name a team may have: 1 to maxTeamName characters of
// valid UTF-8, none a control character (NUL is refused by PostgreSQL).
func teamName(s string) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxTeamName {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}

// readRoles reads the role claim: a name, or a list of names.
func readRoles(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, errors.New("is missing: it names the caller's role")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if !policy.ValidName(one) {
			return nil, fmt.Errorf("names no valid role: %q", one)
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, errors.New("must be a role's name or a list of them")
	}
	for _, r := range many {
		if !policy.ValidName(r) {
			return nil, fmt.Errorf("names no valid role: %q", r)
		}
	}
	return many, nil
}

// team is the number of the team named name, made on first use.
func (v *Verifier) team(ctx context.Context, name string) (int, error) {
	if id, ok := v.teamIDs.Load(name); ok {
		return id.(int), nil
	}
	id, err := v.teams(ctx, name)
	if err != nil {
		return 0, err
	}
	v.teamIDs.Store(name, id)
	return id, nil
}

// algorithm is the alg of a token's header, "" when unreadable.
func algorithm(token string) string {
	head, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	return h.Alg
}

func accepted(alg string) bool {
	for _, a := range Algorithms {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// Package jwttest is an in-process identity provider for tests: OpenID
// Connect discovery and a key set of RSA, EC and Ed25519 keys that can be
// rotated, and an outage; it signs the tokens tests send.
package jwttest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Provider is an in-process identity provider for tests: OpenID Connect
// discovery and a key set (JWKS) of keys that can be rotated, and an
// outage that makes both answer 503.
type Provider struct {
	URL    string
	server *httptest.Server

	mu      sync.Mutex
	keys    map[string]SigningKey // by kid, served
	Down    atomic.Bool
	Fetches atomic.Int64 // of the key set
}

// SigningKey is a private key and its algorithm.
type SigningKey struct {
	Alg  jose.SignatureAlgorithm
	Priv crypto.Signer
}

// NewProvider starts a provider; it stops with the test.
func NewProvider(t testing.TB) *Provider {
	p := &Provider{keys: map[string]SigningKey{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if p.Down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": p.URL, "jwks_uri": p.URL + "/jwks", "authorization_endpoint": p.URL + "/auth",
			"token_endpoint": p.URL + "/token", "id_token_signing_alg_values_supported": []string{"RS256", "ES256", "EdDSA"},
		})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		p.Fetches.Add(1)
		if p.Down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(p.publicSet())
	})
	p.server = httptest.NewServer(mux)
	p.URL = p.server.URL
	t.Cleanup(p.server.Close)
	return p
}

// AddKey makes a key of the algorithm under kid and serves it.
func (p *Provider) AddKey(t testing.TB, kid string, alg jose.SignatureAlgorithm) {
	var priv crypto.Signer
	var err error
	switch alg {
	case jose.RS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.keys[kid] = SigningKey{alg, priv}
	p.mu.Unlock()
}

// RemoveKey stops serving kid (rotation), keeping it to sign with.
func (p *Provider) RemoveKey(kid string) (SigningKey, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.keys[kid]
	delete(p.keys, kid)
	return k, ok
}

func (p *Provider) publicSet() jose.JSONWebKeySet {
	p.mu.Lock()
	defer p.mu.Unlock()
	var set jose.JSONWebKeySet
	for kid, k := range p.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.Priv.Public(), KeyID: kid, Algorithm: string(k.Alg), Use: "sig"})
	}
	return set
}

// Key is the provider's key kid.
func (p *Provider) Key(kid string) (SigningKey, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.keys[kid]
	return k, ok
}

// Sign signs claims with the key kid.
func (p *Provider) Sign(t testing.TB, kid string, claims map[string]any) string {
	p.mu.Lock()
	k, ok := p.keys[kid]
	p.mu.Unlock()
	if !ok {
		t.Fatalf("no key %s", kid)
	}
	return SignWith(t, k, kid, claims)
}

// SignWith signs claims with k, naming kid in the header.
func SignWith(t testing.TB, k SigningKey, kid string, claims map[string]any) string {
	return SignWithOptions(t, k, kid, claims, &jose.SignerOptions{})
}

// SignWithOptions is SignWith with the header opts give (typ is JWT).
func SignWithOptions(t testing.TB, k SigningKey, kid string, claims map[string]any, opts *jose.SignerOptions) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg, Key: jose.JSONWebKey{Key: k.Priv, KeyID: kid}}, opts.WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Claims are a good token's claims for the provider, at now.
func (p *Provider) Claims(now time.Time) map[string]any {
	return map[string]any{
		"iss": p.URL, "aud": []string{"records"}, "sub": "alice",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"records_team": "acme", "records_role": "agent",
	}
}

// Clock is a settable time.
type Clock struct {
	mu sync.Mutex
	T  time.Time
}

// Now is the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.T }

// Add moves the clock.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.T = c.T.Add(d)
	c.mu.Unlock()
}

// NewRSA is a new RSA key no provider serves.
func NewRSA(t testing.TB) crypto.Signer {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// JSON is v as JSON text.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package jwtauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"records/internal/auth"
	"records/internal/jwtauth/jwttest"
)

func newVerifier(t *testing.T, p *jwttest.Provider, c *jwttest.Clock) *Verifier {
	t.Helper()
	v, err := New(context.Background(), Config{Issuer: p.URL, Audience: "records", Now: c.Now}, teams)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Tokens signed with RSA, EC and Ed25519 keys verify, found by discovery,
// and say who the caller is.
func TestKeysOfEveryKind(t *testing.T) {
	p := jwttest.NewProvider(t)
	c := &jwttest.Clock{T: time.Now()}
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA} {
		p.AddKey(t, string(alg), alg)
	}
	v := newVerifier(t, p, c)
	for _, alg := range []string{"RS256", "ES256", "EdDSA"} {
		claims := p.Claims(c.Now())
		claims["records_role"] = []string{"agent", "viewer"}
		claims["dept"] = "support"
		got, err := v.Verify(context.Background(), p.Sign(t, alg, claims))
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		if got.Subject != "alice" || got.TeamName != "acme" || got.Team != 107 || got.Role != "agent" ||
			len(got.Roles) != 2 || got.Via != auth.ViaJWT || got.TokenID != "jwt:acme:alice" || string(got.Claims["dept"]) != `"support"` {
			t.Fatalf("%s: principal %+v", alg, got)
		}
	}
}

// Every failed check is an *Error naming the check, never the token.
func TestChecks(t *testing.T) {
	p := jwttest.NewProvider(t)
	c := &jwttest.Clock{T: time.Now()}
	p.AddKey(t, "k1", jose.RS256)
	p.AddKey(t, "other", jose.RS256)
	v := newVerifier(t, p, c)
	now := c.Now()
	with := func(change func(map[string]any)) string {
		claims := p.Claims(now)
		change(claims)
		return p.Sign(t, "k1", claims)
	}
	forged := p.Sign(t, "other", p.Claims(now))
	// The signature of key "other" under the header of key "k1".
	good := p.Sign(t, "k1", p.Claims(now))
	mixed := strings.Join(append(strings.Split(good, ".")[:2], strings.Split(forged, ".")[2]), ".")
	cases := []struct{ name, token, want string }{
		{"expired", with(func(m map[string]any) { m["exp"] = now.Add(-2 * time.Minute).Unix() }), "expired"},
		{"no exp", with(func(m map[string]any) { delete(m, "exp") }), "exp: the token has no expiry"},
		{"not yet valid", with(func(m map[string]any) { m["nbf"] = now.Add(2 * time.Minute).Unix() }), "not yet valid"},
		{"issued in the future", with(func(m map[string]any) { m["iat"] = now.Add(2 * time.Minute).Unix() }), "iat: issued in the future"},
		{"audience", with(func(m map[string]any) { m["aud"] = "someone-else" }), "audience"},
		{"issuer", with(func(m map[string]any) { m["iss"] = "https://evil.example" }), "issuer"},
		{"no team", with(func(m map[string]any) { delete(m, "records_team") }), "team"},
		{"no role", with(func(m map[string]any) { delete(m, "records_role") }), "role"},
		{"bad role", with(func(m map[string]any) { m["records_role"] = "a b" }), "role"},
		{"no subject", with(func(m map[string]any) { delete(m, "sub") }), "sub"},
		{"signature", mixed, "signature"},
		{"unknown key", jwttest.SignWith(t, jwttest.SigningKey{Alg: jose.RS256, Priv: jwttest.NewRSA(t)}, "nobody", p.Claims(now)), "unknown key"},
		{"alg none", unsigned(p.Claims(now)), "algorithm"},
		{"HMAC", hmacSigned(p.Claims(now)), "algorithm"},
		{"malformed", "a.b.c", "malformed"},
		// Claims of the wrong type, signed with the right key, are named.
		{"exp text", with(func(m map[string]any) { m["exp"] = "abc" }), "exp: must be"},
		{"exp huge", with(func(m map[string]any) { m["exp"] = 1e30 }), "exp: must be"},
		{"nbf text", with(func(m map[string]any) { m["nbf"] = "x" }), "nbf: must be"},
		{"sub number", with(func(m map[string]any) { m["sub"] = 123 }), "sub: must be a string"},
		{"team with NUL", with(func(m map[string]any) { m["records_team"] = "default\x00" }), "team"},
		{"crit", critical(t, p, p.Claims(now)), "crit"},
	}
	for _, tc := range cases {
		_, err := v.Verify(context.Background(), tc.token)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Check, tc.want) {
			t.Errorf("%s: %v, want a check naming %q", tc.name, err, tc.want)
			continue
		}
		if strings.Contains(e.Check, tc.token) || strings.Contains(e.Check, strings.Split(tc.token, ".")[1]) {
			t.Errorf("%s: the message holds the token", tc.name)
		}
	}
	// Within the minute's leeway, nbf, iat and exp pass.
	for name, change := range map[string]func(map[string]any){
		"nbf": func(m map[string]any) { m["nbf"] = now.Add(30 * time.Second).Unix() },
		"iat": func(m map[string]any) { m["iat"] = now.Add(30 * time.Second).Unix() },
		"exp": func(m map[string]any) { m["exp"] = now.Add(-30 * time.Second).Unix() },
	} {
		if _, err := v.Verify(context.Background(), with(change)); err != nil {
			t.Errorf("%s within the leeway: %v", name, err)
		}
	}
}

// A token verified once is kept until it expires: it then fails as
// expired, without asking the provider again.
func TestCachedUntilExpiry(t *testing.T) {
	p := jwttest.NewProvider(t)
	c := &jwttest.Clock{T: time.Now()}
	p.AddKey(t, "k1", jose.ES256)
	v := newVerifier(t, p, c)
	tok := p.Sign(t, "k1", p.Claims(c.Now()))
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	p.RemoveKey("k1")
	p.Down.Store(true)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("a verified token is kept: %v", err)
	}
	c.Add(time.Hour + Leeway + time.Second)
	var e *Error
	if _, err := v.Verify(context.Background(), tok); !errors.As(err, &e) || !strings.Contains(e.Check, "expired") {
		t.Fatalf("past exp: %v", err)
	}
}

// A new key (rotation) is fetched when a token names it; an unknown key
// id fetches the set at most once per 10 s; the keys held keep working
// while the provider is down.
func TestRotationAndOutage(t *testing.T) {
	p := jwttest.NewProvider(t)
	c := &jwttest.Clock{T: time.Now()}
	p.AddKey(t, "old", jose.RS256)
	v := newVerifier(t, p, c)
	ctx := context.Background()
	if _, err := v.Verify(ctx, p.Sign(t, "old", p.Claims(c.Now()))); err != nil {
		t.Fatal(err)
	}
	fetched := p.Fetches.Load()
	p.AddKey(t, "new", jose.EdDSA) // rotation: the provider signs with a new key
	c.Add(11 * time.Second)
	if _, err := v.Verify(ctx, p.Sign(t, "new", p.Claims(c.Now()))); err != nil {
		t.Fatalf("a rotated-in key: %v", err)
	}
	if p.Fetches.Load() != fetched+1 {
		t.Fatalf("the new key took %d fetches", p.Fetches.Load()-fetched)
	}
	// Unknown key ids: one fetch in 10 s however many tokens name them.
	fetched = p.Fetches.Load()
	for i := range 5 {
		tok := jwttest.SignWith(t, jwttest.SigningKey{Alg: jose.RS256, Priv: jwttest.NewRSA(t)}, "made-up-"+string(rune('a'+i)), p.Claims(c.Now()))
		if _, err := v.Verify(ctx, tok); err == nil {
			t.Fatal("a token of an unknown key verified")
		}
	}
	if n := p.Fetches.Load() - fetched; n > 1 {
		t.Fatalf("%d fetches for unknown keys within 10 s, want at most 1", n)
	}
	// The provider goes down: keys held keep verifying new tokens.
	p.Down.Store(true)
	c.Add(11 * time.Second)
	for _, kid := range []string{"old", "new"} {
		if _, err := v.Verify(ctx, p.Sign(t, kid, p.Claims(c.Now()))); err != nil {
			t.Fatalf("key %s while the provider is down: %v", kid, err)
		}
	}
	p.AddKey(t, "newer", jose.ES256)
	_, err := v.Verify(ctx, p.Sign(t, "newer", p.Claims(c.Now())))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Check, "unknown key") || !strings.Contains(e.Check, "could not be fetched") {
		t.Fatalf("an unknown key while the provider is down: %v", err)
	}
	// Back up, and 10 s later, the new key is found.
	p.Down.Store(false)
	c.Add(11 * time.Second)
	if _, err := v.Verify(ctx, p.Sign(t, "newer", p.Claims(c.Now()))); err != nil {
		t.Fatalf("after the outage: %v", err)
	}
}

// --jwks-url names the key set without discovery; iss is then not checked.
func TestJWKSURL(t *testing.T) {
	p := jwttest.NewProvider(t)
	c := &jwttest.Clock{T: time.Now()}
	p.AddKey(t, "k", jose.ES256)
	v, err := New(context.Background(), Config{JWKSURL: p.URL + "/jwks", Audience: "records", Now: c.Now}, teams)
	if err != nil {
		t.Fatal(err)
	}
	claims := p.Claims(c.Now())
	claims["iss"] = "anyone"
	if _, err := v.Verify(context.Background(), p.Sign(t, "k", claims)); err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), Config{JWKSURL: p.URL + "/jwks"}, teams); err == nil {
		t.Fatal("an audience is required")
	}
	p.Down.Store(true)
	if _, err := New(context.Background(), Config{Issuer: p.URL, Audience: "records"}, teams); err == nil {
		t.Fatal("discovery that fails stops the start")
	}
}

func TestLooksLikeJWT(t *testing.T) {
	for s, want := range map[string]bool{"a.b.c": true, "eyJ.eyJ.sig-_": true, "eyJ.eyJ.": true, "rk_abc": false, "a.b": false, "a..c": false, "a.b.c.d": false, "a.b+.c": false} {
		if LooksLikeJWT(s) != want {
			t.Errorf("%q: %v", s, !want)
		}
	}
}

// critical is a token of the key k1 whose header names a critical
// parameter.
func critical(t *testing.T, p *jwttest.Provider, claims map[string]any) string {
	k, _ := p.Key("k1")
	return jwttest.SignWithOptions(t, k, "k1", claims, (&jose.SignerOptions{}).WithHeader("crit", []string{"exp"}))
}

// unsigned is a token with alg none.
func unsigned(claims map[string]any) string {
	return b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(jwttest.JSON(claims)) + "."
}

// hmacSigned is a token signed with HS256 (a key a verifier must never
// accept: with a public key as its secret, anyone could sign).
func hmacSigned(claims map[string]any) string {
	head := b64(`{"alg":"HS256","typ":"JWT","kid":"k1"}`) + "." + b64(jwttest.JSON(claims))
	m := hmac.New(sha256.New, []byte("secret"))
	m.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func teams(ctx context.Context, name string) (int, error) {
	return map[string]int{"acme": 7}[name] + 100, nil
}

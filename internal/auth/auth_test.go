package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"records/internal/db"
	"records/internal/dbtest"
)

func TestSecretsAndHashes(t *testing.T) {
	a, b := NewSecret("rk_"), NewSecret("rk_")
	if !strings.HasPrefix(a, "rk_") || len(a) != len("rk_")+43 || a == b {
		t.Fatalf("secrets %q, %q: want rk_ and 43 URL-safe characters, each new", a, b)
	}
	h := HashSecret(a)
	if len(h) != 64 || h != HashSecret(a) || h == HashSecret(b) {
		t.Fatalf("hash %q: want 64 hex digits, the same for the same secret only", h)
	}
	cases := []struct {
		a, b string
		same bool
	}{
		{h, h, true},
		{h, HashSecret(b), false},
		{h, h[:63], false}, // a prefix is not the hash
		{h, strings.ToUpper(h), false},
		{"", "", true},
		{h, "", false},
	}
	for _, c := range cases {
		if got := SameHash(c.a, c.b); got != c.same {
			t.Errorf("SameHash(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// The store on both databases: issue, verify, expire, revoke, and the
// cache's bounded staleness.
func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		ctx := context.Background()
		clock := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		s := NewStore(database, time.Second)
		s.now = func() time.Time { return clock }

		if _, _, err := s.Create(ctx, "bad", Scope("admin"), "", 0); err == nil {
			t.Fatal("a token with scope admin was issued")
		}
		tok, secret, err := s.Create(ctx, "laptop", Write, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if tok.Team != 1 || tok.TeamName != DefaultTeam || tok.Scope != Write {
			t.Fatalf("token %+v: want the default team (1), write scope", tok)
		}
		p, err := s.Verify(ctx, secret)
		if err != nil || p.TokenID != tok.ID || p.Team != 1 || !p.CanWrite() {
			t.Fatalf("verify: %+v, %v", p, err)
		}
		for _, wrong := range []string{"", secret[:len(secret)-1], secret + "x", strings.ToUpper(secret)} {
			if _, err := s.Verify(ctx, wrong); !errors.Is(err, ErrInvalidToken) {
				t.Errorf("verify %q: %v, want ErrInvalidToken", wrong, err)
			}
		}

		// A read token of another team, expiring in an hour.
		other, otherSecret, err := s.Create(ctx, "reader", Read, "acme", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if other.Team < 2 || other.TeamName != "acme" || other.ExpiresAt == nil {
			t.Fatalf("token %+v: want team acme (≥ 2) with an expiry", other)
		}
		p, err = s.Verify(ctx, otherSecret)
		if err != nil || p.Team != other.Team || p.CanWrite() {
			t.Fatalf("verify reader: %+v, %v", p, err)
		}
		clock = clock.Add(time.Hour) // expired, though cached a moment ago
		if _, err := s.Verify(ctx, otherSecret); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("an expired token verified: %v", err)
		}

		checkRevocation(t, database, s, tok.ID, secret, func(d time.Duration) { clock = clock.Add(d) })

		toks, err := s.List(ctx)
		if err != nil || len(toks) != 3 || toks[0].RevokedAt == nil || toks[1].RevokedAt != nil || toks[2].RevokedAt == nil {
			t.Fatalf("list: %+v, %v", toks, err)
		}
		if n, err := s.Count(ctx); err != nil || n != 3 {
			t.Fatalf("count: %d, %v", n, err)
		}
	})
}

// checkRevocation revokes the token id (whose secret verifies) in s, and
// another in a second store on database: the first is refused at once,
// the second once s's cache's second has passed (advance moves s's clock).
func checkRevocation(t *testing.T, database *db.DB, s *Store, id, secret string, advance func(time.Duration)) {
	t.Helper()
	ctx := context.Background()
	// Revoked here: effective at once in this store. Revoked by another
	// store (another process, the CLI): within the cache's second.
	if err := s.Revoke(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, id); err != nil {
		t.Fatalf("revoking twice: %v", err)
	}
	if _, err := s.Verify(ctx, secret); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a revoked token verified: %v", err)
	}
	if err := s.Revoke(ctx, "no-such-token"); !errors.Is(err, ErrNoSuchToken) {
		t.Fatalf("revoking a missing token: %v", err)
	}
	third, thirdSecret, err := s.Create(ctx, "ci", Write, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, thirdSecret); err != nil {
		t.Fatal(err)
	}
	if err := NewStore(database, 0).Revoke(ctx, third.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, thirdSecret); err != nil {
		t.Fatalf("within the cache's second the revocation elsewhere is not yet seen: %v", err)
	}
	advance(time.Second)
	if _, err := s.Verify(ctx, thirdSecret); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a second later the revocation elsewhere must hold: %v", err)
	}
}

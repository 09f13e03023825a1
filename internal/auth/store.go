package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"records/ent"
	"records/ent/apitoken"
	"records/ent/team"
)

// DefaultTeam is the team of records and tokens when none is named; it is
// team number 1.
const DefaultTeam = "default"

// Token is an API token as listed; its secret is never kept.
type Token struct {
	ID        string
	Name      string
	Team      int
	TeamName  string
	Scope     Scope
	CreatedAt time.Time
	ExpiresAt *time.Time
	RevokedAt *time.Time
}

// ErrInvalidToken is any token that does not authenticate: unknown, revoked
// or expired. One error for all three tells an attacker nothing.
var ErrInvalidToken = errors.New("invalid, revoked or expired token")

// ErrNoSuchToken is a revoke of a token id that does not exist.
var ErrNoSuchToken = errors.New("no such token")

// Store issues, lists, revokes and verifies tokens.
//
// Verified tokens are cached for CacheTTL, so authenticating a request
// usually costs no database query; a revocation (made by another process,
// the CLI) takes effect within CacheTTL. Expiry is checked on every request.
type Store struct {
	client *ent.Client
	ttl    time.Duration
	now    func() time.Time

	cache    sync.Map // secret's SHA-256 → cachedToken; read-mostly, so lock-free
	cacheLen atomic.Int64
}

type cachedToken struct {
	principal Principal
	expiresAt *time.Time
	checkedAt time.Time
}

// maxCached bounds the cache; past it, entries are dropped wholesale.
const maxCached = 10000

// NewStore makes a store over client; cacheTTL 0 checks every request
// against the database.
func NewStore(client *ent.Client, cacheTTL time.Duration) *Store {
	return &Store{client: client, ttl: cacheTTL, now: time.Now}
}

// Create issues a token for the team named teamName (created on first
// use; "" is the default team) and returns it with its secret, which is not
// stored and cannot be shown again.
func (s *Store) Create(ctx context.Context, name string, scope Scope, teamName string, ttl time.Duration) (Token, string, error) {
	if scope != Read && scope != Write {
		return Token{}, "", fmt.Errorf("scope %q: want read or write", scope)
	}
	if teamName == "" {
		teamName = DefaultTeam
	}
	t, err := s.Team(ctx, teamName)
	if err != nil {
		return Token{}, "", err
	}
	secret := NewSecret("rk_")
	create := s.client.APIToken.Create().
		SetName(name).
		SetScope(apitoken.Scope(scope)).
		SetSecretHash(HashSecret(secret)).
		SetTeamID(t.ID)
	if ttl > 0 {
		create.SetExpiresAt(s.now().Add(ttl).UTC().Truncate(time.Second))
	}
	tok, err := create.Save(ctx)
	if err != nil {
		return Token{}, "", err
	}
	return toToken(tok, t), secret, nil
}

// Team returns the team named name, creating it (with the next number; the
// default team is number 1) if it does not exist.
func (s *Store) Team(ctx context.Context, name string) (*ent.Team, error) {
	if name == "" {
		return nil, errors.New("a team needs a name")
	}
	for attempt := 0; ; attempt++ {
		t, err := s.client.Team.Query().Where(team.Name(name)).Only(ctx)
		if !ent.IsNotFound(err) {
			return t, err
		}
		id := 1
		if name != DefaultTeam {
			last, err := s.client.Team.Query().Order(ent.Desc(team.FieldID)).First(ctx)
			switch {
			case ent.IsNotFound(err):
				id = 2 // number 1 stays the default team's
			case err != nil:
				return nil, err
			default:
				id = max(last.ID+1, 2)
			}
		}
		t, err = s.client.Team.Create().SetID(id).SetName(name).Save(ctx)
		if err == nil || !ent.IsConstraintError(err) || attempt == 2 {
			return t, err
		}
		// Another process made the team, or took the number: look again.
	}
}

// List returns every token, oldest first.
func (s *Store) List(ctx context.Context) ([]Token, error) {
	toks, err := s.client.APIToken.Query().WithTeam().Order(ent.Asc(apitoken.FieldCreatedAt), ent.Asc(apitoken.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(toks))
	for i, t := range toks {
		out[i] = toToken(t, t.Edges.Team)
	}
	return out, nil
}

// Count returns how many tokens exist, revoked ones included.
func (s *Store) Count(ctx context.Context) (int, error) {
	return s.client.APIToken.Query().Count(ctx)
}

// Revoke marks the token with id revoked. Revoking twice is not an error.
func (s *Store) Revoke(ctx context.Context, id string) error {
	tok, err := s.client.APIToken.Get(ctx, id)
	if ent.IsNotFound(err) {
		return ErrNoSuchToken
	}
	if err != nil {
		return err
	}
	if tok.RevokedAt != nil {
		return nil
	}
	err = s.client.APIToken.UpdateOneID(id).SetRevokedAt(s.now().UTC()).Exec(ctx)
	if key, derr := hex.DecodeString(tok.SecretHash); derr == nil && len(key) == sha256.Size {
		s.cache.Delete([sha256.Size]byte(key))
	}
	return err
}

// Verify returns the principal of a secret, or ErrInvalidToken.
func (s *Store) Verify(ctx context.Context, secret string) (Principal, error) {
	key := sha256.Sum256([]byte(secret))
	now := s.now()
	if v, ok := s.cache.Load(key); ok && now.Sub(v.(cachedToken).checkedAt) < s.ttl {
		c := v.(cachedToken)
		if c.expiresAt != nil && !now.Before(*c.expiresAt) {
			return Principal{}, ErrInvalidToken
		}
		return c.principal, nil
	}
	hash := hex.EncodeToString(key[:])
	tok, err := s.client.APIToken.Query().Where(apitoken.SecretHash(hash)).Only(ctx)
	if ent.IsNotFound(err) {
		s.cache.Delete(key)
		return Principal{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, err
	}
	// The lookup found the hash by index; the comparison that decides is
	// constant-time all the same.
	if !SameHash(tok.SecretHash, hash) || tok.RevokedAt != nil || (tok.ExpiresAt != nil && !now.Before(*tok.ExpiresAt)) {
		s.cache.Delete(key)
		return Principal{}, ErrInvalidToken
	}
	p := Principal{TokenID: tok.ID, TokenName: tok.Name, Team: tok.TeamID, Scope: Scope(tok.Scope)}
	if s.ttl > 0 {
		if s.cacheLen.Load() >= maxCached {
			s.cache.Clear()
			s.cacheLen.Store(0)
		}
		if _, loaded := s.cache.Swap(key, cachedToken{principal: p, expiresAt: tok.ExpiresAt, checkedAt: now}); !loaded {
			s.cacheLen.Add(1)
		}
	}
	return p, nil
}

func toToken(t *ent.APIToken, tm *ent.Team) Token {
	out := Token{
		ID: t.ID, Name: t.Name, Team: t.TeamID, Scope: Scope(t.Scope),
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt,
	}
	if tm != nil {
		out.TeamName = tm.Name
	}
	return out
}

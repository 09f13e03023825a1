package auth

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"records/internal/db"
	"records/internal/policy"
	"records/internal/spec"
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
	Role      string
	Subject   string // "" when the policies see the token's id
	CreatedAt time.Time
	ExpiresAt *time.Time
	RevokedAt *time.Time
}

// ErrInvalidToken is any token that does not authenticate: unknown, revoked
// or expired. One error for all three tells an attacker nothing.
var ErrInvalidToken = errors.New("invalid, revoked or expired token")

// ErrNoSuchToken is a revoke of a token id that does not exist.
var ErrNoSuchToken = errors.New("no such token")

// Store issues, lists, revokes and verifies tokens, in the teams and
// api_tokens tables (schema/team.go, schema/apitoken.go), with SQL of its own:
// the service's binary does not link ent's client (README, the spec-edit
// loop), and these are a handful of statements, each prepared once.
//
// Verified tokens are cached for CacheTTL, so authenticating a request
// usually costs no database query; a revocation (made by another process,
// the CLI) takes effect within CacheTTL. Expiry is checked on every request.
type Store struct {
	db  *db.DB
	ttl time.Duration
	now func() time.Time

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

// NewStore makes a store over database; cacheTTL 0 checks every request
// against the database.
func NewStore(database *db.DB, cacheTTL time.Duration) *Store {
	return &Store{db: database, ttl: cacheTTL, now: time.Now}
}

// stamp is the time a row is written at, as the databases keep it: UTC,
// to the microsecond.
func (s *Store) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Team is a team: its number and name.
type Team struct {
	ID   int
	Name string
}

// Create issues a token for the team named teamName (created on first
// use; "" is the default team) and returns it with its secret, which is not
// stored and cannot be shown again.
func (s *Store) Create(ctx context.Context, name string, scope Scope, teamName string, ttl time.Duration) (Token, string, error) {
	return s.CreateWith(ctx, NewToken{Name: name, Scope: scope, Team: teamName, TTL: ttl})
}

// NewToken is what a token is created with.
type NewToken struct {
	Name  string
	Scope Scope
	Team  string // the team's name; "" is the default team
	TTL   time.Duration
	// Role is the token's role ("" is admin); Subject what its policies
	// see as $auth.sub ("" is the token's id).
	Role, Subject string
}

// CreateWith issues a token as Create does, with a role and subject.
func (s *Store) CreateWith(ctx context.Context, n NewToken) (Token, string, error) {
	name, scope, teamName, ttl := n.Name, n.Scope, n.Team, n.TTL
	if n.Role == "" {
		n.Role = AdminRole
	}
	if !policy.ValidName(n.Role) {
		return Token{}, "", fmt.Errorf("role %q: a role's name is letters, digits, _, - and . (at most 64)", n.Role)
	}
	if scope != Read && scope != Write {
		return Token{}, "", fmt.Errorf("scope %q: want read or write", scope)
	}
	if name == "" {
		return Token{}, "", errors.New("a token needs a name")
	}
	if teamName == "" {
		teamName = DefaultTeam
	}
	t, err := s.Team(ctx, teamName)
	if err != nil {
		return Token{}, "", err
	}
	secret := NewSecret("rk_")
	tok := Token{
		ID: spec.NewID(), Name: name, Team: t.ID, TeamName: t.Name, Scope: scope,
		Role: n.Role, Subject: n.Subject, CreatedAt: s.stamp(),
	}
	if ttl > 0 {
		at := s.now().Add(ttl).UTC().Truncate(time.Second)
		tok.ExpiresAt = &at
	}
	_, err = s.db.Exec(ctx, `INSERT INTO api_tokens (id, name, secret_hash, scope, role, subject, team_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tok.ID, tok.Name, HashSecret(secret), string(scope), tok.Role, tok.Subject, tok.Team, tok.CreatedAt, tok.ExpiresAt)
	if err != nil {
		return Token{}, "", err
	}
	return tok, secret, nil
}

// Team returns the team named name, creating it (with the next number; the
// default team is number 1) if it does not exist.
func (s *Store) Team(ctx context.Context, name string) (Team, error) {
	if name == "" {
		return Team{}, errors.New("a team needs a name")
	}
	for attempt := 0; ; attempt++ {
		t := Team{Name: name}
		err := s.db.Each(ctx, 1, `SELECT id FROM teams WHERE name = ?`, []any{name}, func(r *sql.Rows) error { return r.Scan(&t.ID) })
		if err != nil || t.ID != 0 {
			return t, err
		}
		t.ID = 1
		if name != DefaultTeam {
			// Number 1 stays the default team's.
			err := s.db.Each(ctx, 1, `SELECT COALESCE(MAX(id), 0) + 1 FROM teams`, nil, func(r *sql.Rows) error { return r.Scan(&t.ID) })
			if err != nil {
				return Team{}, err
			}
			t.ID = max(t.ID, 2)
		}
		_, err = s.db.Exec(ctx, `INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)`, t.ID, t.Name, s.stamp())
		if err == nil || !errors.Is(err, db.ErrConflict) || attempt == 2 {
			return t, err
		}
		// Another process made the team, or took the number: look again.
	}
}

// tokenColumns are the columns of a token that scanToken reads, in order.
const tokenColumns = `t.id, t.name, t.secret_hash, t.scope, t.role, t.subject, t.team_id, t.created_at, t.expires_at, t.revoked_at`

// scanToken reads a row of tokenColumns, then into more, returning the
// token and its secret's hash.
func scanToken(r *sql.Rows, more ...any) (tok Token, hash string, err error) {
	var scope string
	var expires, revoked sql.NullTime
	dest := append([]any{&tok.ID, &tok.Name, &hash, &scope, &tok.Role, &tok.Subject, &tok.Team, &tok.CreatedAt, &expires, &revoked}, more...)
	if err := r.Scan(dest...); err != nil {
		return Token{}, "", err
	}
	tok.Scope = Scope(scope)
	if expires.Valid {
		tok.ExpiresAt = &expires.Time
	}
	if revoked.Valid {
		tok.RevokedAt = &revoked.Time
	}
	return tok, hash, nil
}

// List returns every token, oldest first.
func (s *Store) List(ctx context.Context) ([]Token, error) {
	var out []Token
	err := s.db.Each(ctx, -1, `SELECT `+tokenColumns+`, m.name FROM api_tokens t JOIN teams m ON m.id = t.team_id ORDER BY t.created_at, t.id`, nil,
		func(r *sql.Rows) error {
			var team string
			tok, _, err := scanToken(r, &team)
			tok.TeamName = team
			out = append(out, tok)
			return err
		})
	return out, err
}

// Count returns how many tokens exist, revoked ones included.
func (s *Store) Count(ctx context.Context) (int, error) {
	n := 0
	err := s.db.Each(ctx, 1, `SELECT COUNT(*) FROM api_tokens`, nil, func(r *sql.Rows) error { return r.Scan(&n) })
	return n, err
}

// Revoke marks the token with id revoked. Revoking twice is not an error.
func (s *Store) Revoke(ctx context.Context, id string) error {
	var hash string
	found := false
	err := s.db.Each(ctx, 1, `SELECT secret_hash FROM api_tokens WHERE id = ?`, []any{id}, func(r *sql.Rows) error {
		found = true
		return r.Scan(&hash)
	})
	if err != nil {
		return err
	}
	if !found {
		return ErrNoSuchToken
	}
	_, err = s.db.Exec(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, s.stamp(), id)
	if key, derr := hex.DecodeString(hash); derr == nil && len(key) == sha256.Size {
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
	var tok Token
	var stored string
	found := false
	err := s.db.Each(ctx, 1, `SELECT `+tokenColumns+`, m.name FROM api_tokens t JOIN teams m ON m.id = t.team_id WHERE t.secret_hash = ?`, []any{hash}, func(r *sql.Rows) error {
		var err error
		var team string
		tok, stored, err = scanToken(r, &team)
		tok.TeamName = team
		found = err == nil
		return err
	})
	if err != nil {
		return Principal{}, err
	}
	// The lookup found the hash by index; the comparison that decides is
	// constant-time all the same.
	if !found || !SameHash(stored, hash) || tok.RevokedAt != nil || (tok.ExpiresAt != nil && !now.Before(*tok.ExpiresAt)) {
		s.cache.Delete(key)
		return Principal{}, ErrInvalidToken
	}
	p := Principal{TokenID: tok.ID, TokenName: tok.Name, Team: tok.Team, TeamName: tok.TeamName, Scope: tok.Scope,
		Role: tok.Role, Subject: tok.Subject, Via: ViaToken}
	if p.Subject == "" {
		p.Subject = tok.ID
	}
	if p.Role != AdminRole {
		p.Roles = []string{p.Role}
	}
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

package jwtauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// refetchEvery bounds how often an unknown key id makes the key set be
// fetched again: a flood of tokens naming made-up keys costs the provider
// one request in this time, not one each.
const refetchEvery = 10 * time.Second

// keySet is the provider's key set (JWKS), fetched when a token names a
// key it does not hold, at most once per refetchEvery. The keys it holds
// keep verifying tokens while the provider cannot be reached.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    jose.JSONWebKeySet
	fetched time.Time // of the last attempt, successful or not
	lastErr error     // of the last attempt
}

// keys answers the keys with id kid (every key when kid is ""), fetching
// the set again when it has none and may.
func (s *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.find(kid); len(ks) > 0 {
		return ks, nil
	}
	now := s.now()
	if !s.fetched.IsZero() && now.Sub(s.fetched) < refetchEvery {
		return nil, s.unknown(kid)
	}
	s.fetched = now
	set, err := s.fetch(ctx)
	s.lastErr = err
	if err == nil {
		s.keys = set
	}
	if ks := s.find(kid); len(ks) > 0 {
		return ks, nil
	}
	return nil, s.unknown(kid)
}

func (s *keySet) find(kid string) []jose.JSONWebKey {
	if kid == "" {
		return s.keys.Keys
	}
	return s.keys.Key(kid)
}

// unknown says that no key has the id, and why the set may lack it.
func (s *keySet) unknown(kid string) error {
	why := "unknown key: the identity provider's key set has no key " + fmt.Sprintf("%q", kid)
	if kid == "" {
		why = "unknown key: the token names no key (kid) and the key set is empty"
	}
	if s.lastErr != nil {
		why += " (the key set could not be fetched: " + s.lastErr.Error() + ")"
	}
	return invalid("%s", why)
}

// maxKeySet bounds the key set document read.
const maxKeySet = 1 << 20

func (s *keySet) fetch(ctx context.Context) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return set, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := s.client.Do(req)
	if err != nil {
		return set, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return set, fmt.Errorf("%s answered %s", s.url, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxKeySet))
	if err != nil {
		return set, err
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return set, fmt.Errorf("%s: not a key set: %w", s.url, err)
	}
	return set, nil
}

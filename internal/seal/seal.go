// Package seal encrypts what the service must keep but must not keep in
// the clear — a webhook's signing secret, the answer to a write that made
// a secret, kept for the replay of its Idempotency-Key — with AES-256-GCM
// under a key the service keeps in the database (service_keys), each
// sealed value bound to the row it belongs to: a copy of a table alone, or
// a value moved to another row, does not open.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// Sealer seals and opens values under one key.
type Sealer struct{ aead cipher.AEAD }

// New makes a Sealer of a 32-byte key.
func New(key []byte) (*Sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain for the row named by id: a random nonce, then the
// ciphertext.
func (s *Sealer) Seal(id string, plain []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plain, []byte(id)), nil
}

// ErrSealed: a sealed value does not open (another key, another row, or
// altered).
var ErrSealed = errors.New("a sealed value does not decrypt")

// Open decrypts what Seal sealed for id.
func (s *Sealer) Open(id string, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrSealed
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(id))
	if err != nil {
		return nil, ErrSealed
	}
	return plain, nil
}

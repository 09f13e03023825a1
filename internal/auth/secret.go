package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
)

// secretBytes is the entropy of a secret: 256 bits.
const secretBytes = 32

// NewSecret makes a random secret, URL-safe, with the given prefix (which
// tells a leaked secret's kind at a glance, e.g. "rk_" for API keys).
func NewSecret(prefix string) string {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		panic("auth: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret is what is stored of a secret: its SHA-256, in hex. A secret
// has 256 bits of entropy, so a fast hash suffices (no password stretching).
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// SameHash compares two hashes in constant time.
func SameHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

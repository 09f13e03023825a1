package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// A webhook's secret is "whsec_" and the base64 of 32 random bytes, the
// key that signs its deliveries (Standard Webhooks). Signing needs the key
// itself, so it cannot be kept as a hash: it is kept sealed (package seal)
// under a key the service makes once per database (service_keys), so that
// a copy of the webhooks table alone, or of a backup of it, does not sign.

const secretPrefix = "whsec_"

// newSecret makes a webhook's secret.
func newSecret() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// Sign is the webhook-signature header of a delivery: "v1," and the base64
// HMAC-SHA256, under the secret's key, of "<id>.<timestamp>.<body>".
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return "", err
	}
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	h.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

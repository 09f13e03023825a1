// Command idp is a minimal identity provider for bench/roles.sh: it makes
// an EC key, serves its key set at /jwks, and prints, one a line, a JWT
// for each role given (team "default", subject "alice", valid for a day).
//
//	idp --addr 127.0.0.1:18099 --audience records admin agent
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18099", "address to serve the key set on")
	audience := flag.String("audience", "records", "the tokens' aud")
	flag.Parse()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "bench"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		log.Fatal(err)
	}
	now := time.Now()
	for _, role := range flag.Args() {
		tok, err := jwt.Signed(signer).Claims(map[string]any{
			"sub": "alice", "aud": *audience, "iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
			"records_team": "default", "records_role": role,
		}).Serialize()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tok)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "bench", Algorithm: "ES256", Use: "sig"}}}
	http.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(set) })
	log.Fatal(http.ListenAndServe(*addr, nil))
}

package server_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/jwtauth"
	"records/internal/jwtauth/jwttest"
	"records/internal/policy"
)

// Callers signed in by an identity provider: their JWT's team, role and
// subject are what an API token's are, and its claims feed the policies;
// a JWT that fails a check is a 401 that names the check.
func TestJWTCallers(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			idp := jwttest.NewProvider(t)
			idp.AddKey(t, "rsa", jose.RS256)
			idp.AddKey(t, "ec", jose.ES256)
			idp.AddKey(t, "ed", jose.EdDSA)
			cfg := testConfig()
			p, err := policy.Parse("p.yaml", []byte(rolesPolicies+`  mailer:
    cases:
      read: {filter: {submitter: "$auth.claims.email"}}
`))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Policies = p
			cfg.JWT = jwtauth.Config{Issuer: idp.URL, Audience: "records"}
			h := newHarness(t, d, cfg)
			admin := h.newToken("acme admin", auth.Write, "acme")
			h.callAs(admin, "POST", "/v1/cases", `[{"id":"j-1","resolver":"alice","submitter":"a@x"},{"id":"j-2","resolver":"bob","submitter":"b@x"}]`).want(201)

			now := time.Now()
			claims := idp.Claims(now)
			claims["records_role"] = []string{"agent", "mailer"}
			claims["email"] = "b@x"
			for _, kid := range []string{"rsa", "ec", "ed"} {
				jwt := idp.Sign(t, kid, claims)
				me := h.callAs(jwt, "GET", "/v1/me", "").want(200)
				if me.at("via") != "jwt" || me.at("team") != "acme" || me.at("subject") != "alice" || me.at("role") != "agent" {
					t.Fatalf("%s: me %s", kid, me.Body)
				}
				if got := ids(t, h.uncheckedAs(jwt, "GET", "/v1/cases", "").want(200).list("data", "case")); !slices.Equal(got, []string{"j-1"}) {
					t.Fatalf("%s: the agent JWT sees %v", kid, got)
				}
				// Records-Role picks the other role the token grants: its
				// filter reads the token's email claim.
				if got := ids(t, h.uncheckedAs(jwt, "GET", "/v1/cases", "", "Records-Role", "mailer").want(200).list("data", "case")); !slices.Equal(got, []string{"j-2"}) {
					t.Fatalf("%s: the mailer JWT sees %v", kid, got)
				}
				h.callAs(jwt, "GET", "/v1/cases", "", "Records-Role", "admin").problem(403, "permission_denied")
			}
			// The default team's records are not acme's.
			h.call("POST", "/v1/cases", `{"id":"d-1","resolver":"alice"}`).want(201)
			h.callAs(idp.Sign(t, "rsa", claims), "GET", "/v1/cases/d-1", "").problem(404, "not_found")

			bad := idp.Claims(now)
			bad["aud"] = "another-api"
			token := idp.Sign(t, "ec", bad)
			r := h.callAs(token, "GET", "/v1/cases", "").problem(401, "unauthenticated").mentions("audience")
			if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="records", error="invalid_token"` {
				t.Fatalf("WWW-Authenticate: %q", got)
			}
			if strings.Contains(string(r.Body), token) || strings.Contains(string(r.Body), strings.Split(token, ".")[1]) {
				t.Fatal("the answer holds the token")
			}
			// An unsigned token (alg none, an empty signature) is a JWT
			// refused for its algorithm, not an API token unknown.
			none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
				base64.RawURLEncoding.EncodeToString([]byte(jwttest.JSON(claims))) + "."
			r = h.callAs(none, "GET", "/v1/me", "").problem(401, "unauthenticated").mentions("algorithm")
			if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="records", error="invalid_token"` {
				t.Fatalf("WWW-Authenticate of an unsigned token: %q", got)
			}
			expired := idp.Claims(now.Add(-3 * time.Hour))
			h.callAs(idp.Sign(t, "ed", expired), "GET", "/v1/me", "").problem(401, "unauthenticated").mentions("expired")
			// An admin JWT may read the event log; an agent's may not.
			adminClaims := idp.Claims(now)
			adminClaims["records_role"] = "admin"
			h.callAs(idp.Sign(t, "rsa", adminClaims), "GET", "/v1/events", "").want(200)
			h.callAs(idp.Sign(t, "rsa", claims), "GET", "/v1/events", "").problem(403, "permission_denied")
		})
	}
}

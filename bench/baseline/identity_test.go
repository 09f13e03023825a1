package baseline_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/jwtauth"
	"records/internal/jwtauth/jwttest"
	"records/internal/server"
)

// identity is a server trusting an in-process identity provider, with
// 1,000 cases (900 resolved by alice), an admin API token, and JWTs of
// the roles admin and agent (subject alice).
type identity struct {
	h               http.Handler
	token, adminJWT string
	agentJWT        string
	agentAPIToken   string
}

func setupIdentity(b *testing.B, dialect string) identity {
	b.Helper()
	ctx := context.Background()
	database, err := db.Open(ctx, db.Config{URL: dbtest.URL(b, dialect)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { database.Close() })
	if _, err := database.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	store := auth.NewStore(database, 0)
	_, token, err := store.Create(ctx, "bench", auth.Write, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	_, agentToken, err := store.CreateWith(ctx, auth.NewToken{Name: "agent", Scope: auth.Write, Role: "agent", Subject: "alice"})
	if err != nil {
		b.Fatal(err)
	}
	idp := jwttest.NewProvider(b)
	idp.AddKey(b, "k", jose.ES256)
	cfg := server.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e9, 1e9
	cfg.JWT = jwtauth.Config{Issuer: idp.URL, Audience: "records"}
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	id := identity{h: srv.Handler(), token: token, agentAPIToken: agentToken}
	claims := idp.Claims(time.Now())
	claims["records_team"] = "default"
	claims["records_role"] = "admin"
	id.adminJWT = idp.Sign(b, "k", claims)
	claims["records_role"] = "agent"
	id.agentJWT = idp.Sign(b, "k", claims)
	for batch := range 10 {
		var body strings.Builder
		body.WriteString("[")
		for i := range 100 {
			n := batch*100 + i
			resolver := "alice"
			if n%10 == 9 {
				resolver = "bob"
			}
			if i > 0 {
				body.WriteString(",")
			}
			fmt.Fprintf(&body, `{"id":"case-%d","caseName":"Case %d","description":"A customer writes about order %d","priority":"normal","caseStatus":"open","submitter":"s%d","resolver":%q}`, n, n, n, n, resolver)
		}
		body.WriteString("]")
		req := httptest.NewRequest("POST", "/v1/cases", strings.NewReader(body.String()))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		id.h.ServeHTTP(w, req)
		if w.Code != http.StatusCreated {
			b.Fatalf("seeding: %d %s", w.Code, w.Body)
		}
	}
	return id
}

// BenchmarkIdentity: GET by id with a JWT against an API token (a JWT must
// cost what a token costs), and a list of 100 under the agent role's
// filter against admin's (README, Performance).
func BenchmarkIdentity(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			id := setupIdentity(b, d)
			b.Run("get/token", func(b *testing.B) { run(b, id.h, "/v1/cases/case-500", id.token) })
			b.Run("get/jwt", func(b *testing.B) { run(b, id.h, "/v1/cases/case-500", id.adminJWT) })
			b.Run("list100/admin", func(b *testing.B) { run(b, id.h, "/v1/cases?limit=100", id.token) })
			b.Run("list100/agent-jwt", func(b *testing.B) { run(b, id.h, "/v1/cases?limit=100", id.agentJWT) })
			b.Run("list100/agent-token", func(b *testing.B) { run(b, id.h, "/v1/cases?limit=100", id.agentAPIToken) })
		})
	}
}

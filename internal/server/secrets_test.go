package server_test

import (
	"context"
	"strings"
	"testing"

	"records/ent/apitoken"
	"records/internal/auth"
	"records/internal/dbtest"
)

// noLeak fails if an error answer carries SQL, a stack, a driver's words or a secret.
func noLeak(t *testing.T, r *response) {
	t.Helper()
	body := strings.ToLower(string(r.Body))
	for _, s := range []string{"select ", "insert ", "goroutine", ".go:", "pq:", "sqlite", "rk_", "dial tcp", "constraint"} {
		if strings.Contains(body, s) {
			t.Fatalf("the answer leaks %q: %s", s, r.Body)
		}
	}
}

func TestNoSecretIsStoredOrLogged(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		r := h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme"}`).want(201)
		supplierSecret := r.at("user_group", "token").(string)
		h.call("DELETE", "/v1/customers/nope", `{"current_token":"sk_from_the_body"}`).problem(404, "not_found")
		h.call("POST", "/v1/customers", `{"email":"x"}`).want(201)
		h.callAs("rk_wrong_secret", "GET", "/v1/customers", "").problem(401, "unauthenticated")

		// The token table keeps hashes, never a secret.
		rows, err := h.db.SQL.Query(`SELECT * FROM api_tokens`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		n := 0
		for rows.Next() {
			n++
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			for i, v := range vals {
				var s string
				switch x := v.(type) {
				case string:
					s = x
				case []byte:
					s = string(x)
				}
				if s != "" && (strings.Contains(s, h.token) || strings.Contains(h.token, s) && len(s) > 8) {
					t.Fatalf("column %s holds the secret in clear", cols[i])
				}
			}
		}
		rows.Close()
		if n == 0 {
			t.Fatal("no tokens found")
		}
		if c := dbtest.Ent(h.db).APIToken.Query().Where(apitoken.SecretHash(auth.HashSecret(h.token))).CountX(context.Background()); c != 1 {
			t.Fatalf("the token's hash is not stored: %d", c)
		}
		// The log holds one line per request, and never a secret or a body.
		logs := h.logs.String()
		for _, secret := range []string{h.token, supplierSecret, "sk_from_the_body", "rk_wrong_secret", "Bearer", `"email"`} {
			if strings.Contains(logs, secret) {
				t.Fatalf("the log contains %q", secret)
			}
		}
		if lines := strings.Count(logs, `"msg":"request"`); lines < 4 {
			t.Fatalf("want a line per request, got %d:\n%s", lines, logs)
		}
		for _, want := range []string{`"request_id":`, `"route":"PUT /v1/suppliers/:id"`, `"status":201`, `"latency_ms":`, `"team":1`, `"code":"unauthenticated"`} {
			if !strings.Contains(logs, want) {
				t.Fatalf("the log lacks %s:\n%s", want, logs)
			}
		}
	})
}

// A write that makes a secret shown once — a webhook's signing secret, a
// supplier's token — sent with an Idempotency-Key keeps its answer sealed:
// the replay shows the secret again, byte for byte, while no column of
// idempotency_keys holds it.
func TestKeptAnswersHoldNoSecretInClear(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		hook := h.call("POST", "/v1/webhooks", `{"url":"https://93.184.216.34/x","events":["*"]}`, "Idempotency-Key", "hook-1").want(201)
		supplier := h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme"}`, "Idempotency-Key", "supplier-1").want(201)
		secrets := []string{hook.at("secret").(string), supplier.at("user_group", "token").(string)}
		for _, r := range []*response{
			h.call("POST", "/v1/webhooks", `{"url":"https://93.184.216.34/x","events":["*"]}`, "Idempotency-Key", "hook-1").want(201),
			h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme"}`, "Idempotency-Key", "supplier-1").want(201),
		} {
			if r.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("not a replay: %s", r.Body)
			}
		}
		if again := h.call("POST", "/v1/webhooks", `{"url":"https://93.184.216.34/x","events":["*"]}`, "Idempotency-Key", "hook-1"); string(again.Body) != string(hook.Body) {
			t.Fatalf("the replay differs:\n%s\n%s", again.Body, hook.Body)
		}
		kept := 0
		rows, err := h.db.SQL.Query(`SELECT "id", "body" FROM "idempotency_keys"`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var body []byte
			if err := rows.Scan(&id, &body); err != nil {
				t.Fatal(err)
			}
			kept++
			for _, secret := range secrets {
				if strings.Contains(string(body), secret) {
					t.Fatalf("the kept answer of %s holds a secret in clear: %s", id, body)
				}
			}
		}
		if kept != 2 {
			t.Fatalf("%d kept answers, want 2", kept)
		}
	})
}

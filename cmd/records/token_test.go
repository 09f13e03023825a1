package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestTokenCommands(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	code, out, errOut := run(t, "token", "create", "--name", "laptop", "--database-url", url)
	if code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	if !strings.HasPrefix(secret, "rk_") || len(secret) < 40 {
		t.Fatalf("the secret is the last line: %q", out)
	}
	if !strings.Contains(out, "team default (number 1), scope write") {
		t.Fatalf("create output: %s", out)
	}
	id := strings.Fields(lines[0])[2]

	code, out, _ = run(t, "token", "create", "--name", "reports", "--scope", "read", "--team", "analytics", "--expires", "720h", "--database-url", url)
	if code != 0 || !strings.Contains(out, "team analytics (number 2), scope read, role admin, expires ") {
		t.Fatalf("create in a new team: %d %s", code, out)
	}

	code, out, _ = run(t, "token", "list", "--database-url", url)
	if code != 0 || !strings.Contains(out, "laptop") || !strings.Contains(out, "analytics (2)") || strings.Contains(out, secret) {
		t.Fatalf("list (never a secret): %d %s", code, out)
	}

	if code, out, _ = run(t, "token", "revoke", id, "--database-url", url); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	if _, out, _ = run(t, "token", "list", "--database-url", url); !strings.Contains(out, "revoked") {
		t.Fatalf("a revoked token is listed as such: %s", out)
	}
	if code, _, errOut = run(t, "token", "revoke", "no-such-id", "--database-url", url); code == 0 || !strings.Contains(errOut, "no such token") {
		t.Fatalf("revoking an unknown id: %d %s", code, errOut)
	}
	if code, _, errOut = run(t, "token", "create", "--name", "x", "--scope", "admin", "--database-url", url); code == 0 || !strings.Contains(errOut, "read or write") {
		t.Fatalf("an unknown scope: %d %s", code, errOut)
	}
	code, out, _ = run(t, "token", "create", "--name", "desk", "--role", "agent", "--subject", "alice", "--database-url", url)
	if code != 0 || !strings.Contains(out, "scope write, role agent, subject alice") {
		t.Fatalf("create with a role: %d %s", code, out)
	}
	if _, out, _ = run(t, "token", "list", "--database-url", url); !strings.Contains(out, "agent, subject alice") {
		t.Fatalf("the list shows the role: %s", out)
	}
	if code, _, errOut = run(t, "token", "create", "--name", "x", "--role", "no role", "--database-url", url); code == 0 || !strings.Contains(errOut, "role") {
		t.Fatalf("a role that is no name: %d %s", code, errOut)
	}
	if code, _, errOut = run(t, "token", "create", "--database-url", url); code == 0 || !strings.Contains(errOut, "name") {
		t.Fatalf("a token needs a name: %d %s", code, errOut)
	}
}

// A lifetime of 0 or less would make a token expired at birth: refused,
// naming the flag, and no token made.
func TestTokenCreateRefusesLifetimeNotAboveZero(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	for _, expires := range []string{"-5s", "0", "0s", "-720h"} {
		code, out, errOut := run(t, "token", "create", "--name", "x", "--expires", expires, "--database-url", url)
		if code == 0 || !strings.Contains(errOut, "--expires") || strings.Contains(out, "rk_") {
			t.Errorf("--expires %s: exit %d, stdout %q, stderr %q", expires, code, out, errOut)
		}
	}
	if code, out, _ := run(t, "token", "list", "--database-url", url); code == 0 && strings.Contains(out, " x ") {
		t.Errorf("a refused token was made: %s", out)
	}
	if code, out, errOut := run(t, "token", "create", "--name", "y", "--expires", "1s", "--database-url", url); code != 0 || !strings.Contains(out, "expires ") {
		t.Errorf("--expires 1s: exit %d %s %s", code, out, errOut)
	}
}

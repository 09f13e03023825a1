package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/migrate"
)

// tsDir is the TypeScript client's folder: its package.json and lock,
// the generated src/ and the hand-written test/.
const tsDir = "../../clients/typescript"

var (
	npmOnce sync.Once
	npmErr  error
)

// npmCI installs the TypeScript client's pinned dependencies (once per
// run). Without npm the test is skipped — except under CI, where it fails.
func npmCI(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing, and CI requires the TypeScript client's checks", tool)
			}
			t.Skipf("%s is missing: the TypeScript client is not checked", tool)
		}
	}
	npmOnce.Do(func() { _, npmErr = runIn(tsDir, nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund") })
	if npmErr != nil {
		t.Fatal(npmErr)
	}
}

// runIn runs a command in dir, failing with its output.
func runIn(dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), &cmdError{cmd: cmd.String(), err: err, out: string(out)}
	}
	return string(out), nil
}

type cmdError struct {
	cmd, out string
	err      error
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + e.out }

// The generated TypeScript client, and the test that uses it as a user
// would, type-check under strict.
func TestTypeScriptClientTypeChecks(t *testing.T) {
	npmCI(t)
	if _, err := runIn(tsDir, nil, filepath.Join("node_modules", ".bin", "tsc"), "--noEmit", "-p", "."); err != nil {
		t.Fatal(err)
	}
}

// The TypeScript client, compiled, runs test/smoke.ts against a server:
// records, lists walked by cursor through query strings, an operation's
// envelope, problems, keys, preconditions, events and webhooks.
func TestTypeScriptClientRuns(t *testing.T) {
	npmCI(t)
	out := t.TempDir()
	if _, err := runIn(tsDir, nil, filepath.Join("node_modules", ".bin", "tsc"), "-p", ".", "--outDir", out); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, migrate.SQLite)
	got, err := runIn(tsDir, []string{"RECORDS_URL=" + e.base, "RECORDS_TOKEN=" + e.token}, "node", filepath.Join(out, "test", "smoke.js"))
	if err != nil {
		t.Fatal(err)
	}
	if got != "ok\n" {
		t.Fatalf("the smoke run said %q", got)
	}
	// The quickstart the README shows runs as shown.
	got, err = runIn(tsDir, []string{"RECORDS_URL=" + e.base, "TOKEN=" + e.token}, "node", filepath.Join(out, "examples", "quickstart.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created ", "open returns: ", "refused: 400 invalid_request", "to received"} {
		if !strings.Contains(got, want) {
			t.Errorf("the quickstart said %q, without %q", got, want)
		}
	}
}

package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// srcDir is the console's sources: package.json, its lock, src/, test/ and
// e2e/ (the browser test's script).
const srcDir = "../../console"

// chromium is Debian's browser, which the browser test drives: Playwright
// cannot download one here.
const chromium = "/usr/bin/chromium"

// requireTools skips the test when a tool is missing — except under CI,
// where every tool must be there (.ci/run installs them).
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing, and CI requires the console's tests (.ci/run installs it)", tool)
			}
			t.Skipf("%s is missing: the console is not tested", tool)
		}
	}
}

var (
	npmOnce sync.Once
	npmErr  error
)

// npmCI installs the console's pinned dependencies from its lock, once per
// run, and not at all while node_modules holds what the lock names: a
// stamp of the lock's hash, written after a successful install, says so.
func npmCI(t *testing.T) {
	t.Helper()
	requireTools(t, "node", "npm")
	npmOnce.Do(func() {
		lock, err := os.ReadFile(filepath.Join(srcDir, "package-lock.json"))
		if err != nil {
			npmErr = err
			return
		}
		sum := sha256.Sum256(lock)
		want := hex.EncodeToString(sum[:])
		stamp := filepath.Join(srcDir, "node_modules", ".records-lock-sha256")
		if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
			return
		}
		if _, npmErr = run(t.Context(), srcDir, nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"); npmErr == nil {
			npmErr = os.WriteFile(stamp, []byte(want), 0o644)
		}
	})
	if npmErr != nil {
		t.Fatal(npmErr)
	}
}

// bin runs a tool of node_modules/.bin.
func bin(name string) string { return filepath.Join("node_modules", ".bin", name) }

// run runs a command in dir and answers its output; a failure carries it.
func run(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %w\n%s", cmd, err, out.String())
	}
	return out.String(), nil
}

var (
	compileOnce sync.Once
	compileErr  error
)

// compile type-checks the console (strict) and writes it, its unit tests
// and its browser test as JavaScript into console/build (kept out of git),
// where node finds node_modules.
func compile(t *testing.T) {
	t.Helper()
	npmCI(t)
	compileOnce.Do(func() {
		if compileErr = os.RemoveAll(filepath.Join(srcDir, "build")); compileErr == nil {
			_, compileErr = run(t.Context(), srcDir, nil, bin("tsc"), "-p", ".")
		}
	})
	if compileErr != nil {
		t.Fatal(compileErr)
	}
}

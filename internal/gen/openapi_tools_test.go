package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tools people generate clients with and lint documents with, each
// pinned: Go's oapi-codegen through the module proxy, and the npm
// packages of testdata/openapi-tools (package-lock.json pins them and all
// they use). The folder also holds the tsconfig the TypeScript outputs
// compile under and the module the Go output compiles in.
const (
	toolsDir    = "testdata/openapi-tools"
	oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	redoclyYAML = "../../redocly.yaml"
)

// The document suits the tools people use on it: oapi-codegen generates a
// Go client and its types that compile, every type named by the document
// (none invented from a place in it, as Limit0 or Return_Expand);
// openapi-typescript's types and @hey-api/openapi-ts's client type-check
// under tsc --strict; Redocly's recommended rules pass (but for the
// contract's trailing slashes, redocly.yaml). Without Node the npm tools
// are skipped, but under CI, where they must run.
func TestOpenAPIDocumentSuitsItsTools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs client generators and compilers")
	}
	doc, err := filepath.Abs(documentFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("oapi-codegen", func(t *testing.T) {
		t.Parallel()
		checkGoClient(t, doc)
	})
	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		bin := npmTools(t)
		checkTypeScript(t, bin, doc)
	})
	t.Run("redocly", func(t *testing.T) {
		t.Parallel()
		bin := npmTools(t)
		out, err := runTool(t, "", []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true"},
			filepath.Join(bin, "redocly"), "lint", "--config", absPath(t, redoclyYAML), "--format", "codeframe", doc)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// Warnings do not fail the lint; they fail this test.
		if !strings.Contains(out, "Your API description is valid") {
			t.Fatalf("the lint found something:\n%s", out)
		}
	})
}

// checkGoClient generates the Go client and its types with oapi-codegen
// and builds them in a throwaway module (testdata/openapi-tools/go-client
// pins its dependencies).
func checkGoClient(t *testing.T, doc string) {
	mod := workDir(t, "go")
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(toolsDir, "go-client", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	client := filepath.Join(mod, "records.gen.go")
	// go run pkg@version builds outside this module, with the tool's own
	// dependencies; GOFLAGS of the caller must not reach it.
	env := []string{"GOFLAGS=", "GOWORK=off"}
	if out, err := runTool(t, mod, env, "go", "run", oapiCodegen, "-generate", "types,client", "-package", "records", "-o", client, doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runTool(t, mod, append(env, "GOFLAGS=-mod=readonly"), "go", "build", "./..."); err != nil {
		t.Fatalf("the generated Go client does not build: %v\n%s", err, out)
	}
	src, err := os.ReadFile(client)
	if err != nil {
		t.Fatal(err)
	}
	if invented := inventedGoTypes(src); len(invented) > 0 {
		t.Fatalf("oapi-codegen named types after their place in the document, for want of a name in it: %s", strings.Join(invented, ", "))
	}
}

// inventedGoTypes are the types oapi-codegen named itself: after a
// choice's alternative (Limit0) or a member of an object (Return_Expand).
func inventedGoTypes(src []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^type ([A-Za-z0-9_]+)`).FindAllSubmatch(src, -1) {
		name := string(m[1])
		if strings.Contains(name, "_") || regexp.MustCompile(`[0-9]$`).MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// checkTypeScript generates openapi-typescript's types and
// @hey-api/openapi-ts's client, then type-checks both with tsc --strict
// (testdata/openapi-tools/tsconfig.json).
func checkTypeScript(t *testing.T, bin, doc string) {
	out := workDir(t, "typescript")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	outs := make([]string, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		outs[0], errs[0] = runTool(t, "", nil, filepath.Join(bin, "openapi-typescript"), doc, "-o", filepath.Join(out, "openapi-typescript", "records.d.ts"))
	}()
	go func() {
		defer wg.Done()
		outs[1], errs[1] = runTool(t, "", nil, filepath.Join(bin, "openapi-ts"), "-i", doc, "-o", filepath.Join(out, "hey-api"))
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%v\n%s", err, outs[i])
		}
	}
	tsconfig, err := os.ReadFile(filepath.Join(toolsDir, "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "tsconfig.json"), tsconfig, 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := runTool(t, "", nil, filepath.Join(bin, "tsc"), "-p", out); err != nil {
		t.Fatalf("the generated TypeScript does not type-check: %v\n%s", err, o)
	}
}

// workDir is a folder of this clone's outside the repository, kept
// between runs (a stable path lets Go's build cache and tsc's incremental
// build skip what did not change): the user's cache, else the temp dir.
func workDir(t *testing.T, name string) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(absPath(t, toolsDir)))
	dir := filepath.Join(base, "records-openapi-tools", hex.EncodeToString(sum[:6]), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	npmOnce sync.Once
	npmBin  string
	npmErr  error
)

// npmTools installs the pinned npm packages (once per run, and again only
// when package-lock.json changed: node_modules keeps the lock's digest)
// and answers the folder of their commands. Without npm and node it
// skips the test, but under CI.
func npmTools(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing, and CI runs the OpenAPI tools", tool)
			}
			t.Skipf("%s is missing: the OpenAPI tools do not run", tool)
		}
	}
	dir := absPath(t, toolsDir)
	npmOnce.Do(func() {
		lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
		if err != nil {
			npmErr = err
			return
		}
		sum := sha256.Sum256(lock)
		want := hex.EncodeToString(sum[:])
		stamp := filepath.Join(dir, "node_modules", ".package-lock.sha256")
		npmBin = filepath.Join(dir, "node_modules", ".bin")
		if got, _ := os.ReadFile(stamp); string(got) == want {
			return
		}
		var out string
		if out, npmErr = runTool(t, dir, nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"); npmErr != nil {
			npmErr = &toolError{npmErr, out}
			return
		}
		npmErr = os.WriteFile(stamp, []byte(want), 0o644)
	})
	if npmErr != nil {
		t.Fatal(npmErr)
	}
	return npmBin
}

type toolError struct {
	err error
	out string
}

func (e *toolError) Error() string { return e.err.Error() + "\n" + e.out }

// runTool runs a command in dir (the package's folder when empty) and
// answers what it wrote, both streams.
func runTool(t testing.TB, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %s", filepath.Base(name), strings.Join(args[:min(len(args), 2)], " "), time.Since(start).Round(100*time.Millisecond))
	return out.String(), err
}

func absPath(t testing.TB, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

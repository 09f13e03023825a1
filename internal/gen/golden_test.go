package gen

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files and expected errors in testdata/")

// The golden case: the service's own schemas with the golden resources
// (testdata/golden/schema) and route table (testdata/golden/routes.yaml),
// generated whole — ent, handlers, OpenAPI document, migrations for both
// databases — in a scratch copy of the repository, compared with
// testdata/golden/want (all but ent's own output), and built.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds a whole module")
	}
	devURL := devPostgresURL(t)
	repo, want := absPath(t, "../.."), absPath(t, "testdata/golden/want")
	errCases, served := absPath(t, "testdata/errors"), absPath(t, "testdata/golden/tests")
	goldenRules, err := os.ReadFile("testdata/golden/rules/rules.go")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.DevPostgresURL = devURL
	mod := goldenModule(t, repo, cfg)
	// The golden module's business rules: hand-written, never generated.
	if err := os.WriteFile(filepath.Join(mod, "rules", "rules.go"), goldenRules, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(mod)

	out, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for p, b := range out.Files {
		if !strings.HasPrefix(p, cfg.EntDir+"/") {
			files[p] = b
		}
	}
	if *update {
		rewriteTree(t, want, files)
	}
	compareTree(t, want, files)

	if _, err := out.Write(mod); err != nil {
		t.Fatal(err)
	}
	// Generating writes nothing in package rules: it survives byte for byte.
	for p := range out.Files {
		if strings.HasPrefix(p, "rules/") {
			t.Errorf("generate writes %s, in the hand-written package rules", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(mod, "rules", "rules.go")); err != nil || !bytes.Equal(b, goldenRules) {
		t.Errorf("package rules changed in a generate: %v", err)
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = mod
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the generated module does not build: %v\n%s", err, b)
	}

	// The Go client is for any program: a module of its own that needs
	// nothing but the standard library.
	deps := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...")
	deps.Dir = filepath.Join(mod, cfg.GoClientDir)
	if b, err := deps.Output(); err != nil || strings.TrimSpace(string(b)) != "records/"+cfg.GoClientDir {
		t.Errorf("the Go client depends on more than the standard library: %v\n%s", err, b)
	}

	t.Run("route table mistakes", func(t *testing.T) { routeTableMistakes(t, cfg, errCases) })
	t.Run("serves", func(t *testing.T) { goldenServes(t, repo, mod, served) })
	t.Run("clients compile", func(t *testing.T) { goldenClientsCompile(t, repo, mod, cfg) })
}

// rewriteTree replaces the folder dir with files (paths with slashes).
func rewriteTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// devPostgresURL is the PostgreSQL where the PostgreSQL migrations are
// written; without one, generation starts a throw-away cluster if it can.
func devPostgresURL(t *testing.T) string {
	for _, v := range []string{"RECORDSGEN_DEV_POSTGRES_URL", "TEST_DATABASE_URL"} {
		if u := os.Getenv(v); u != "" {
			return u
		}
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// goldenModule copies the repository's hand-written files to a scratch
// folder, without its generated ones, its resources, its route table and
// its migrations, and puts the golden schema and route table in their place.
func goldenModule(t *testing.T, repo string, cfg Config) string {
	t.Helper()
	mod := t.TempDir()
	skip := append(cfg.Owned(), ".git", "bin", "data", "bench", cfg.SchemaDir)
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (slices.Contains(skip, rel) || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.IsDir(), strings.HasSuffix(rel, "_test.go"):
			return nil
		case strings.HasPrefix(rel, cfg.MigrationsDir+"/") && path.Ext(rel) == ".sql":
			return nil
		}
		return copyFile(p, filepath.Join(mod, filepath.FromSlash(rel)))
	})
	if err != nil {
		t.Fatal(err)
	}
	// The service's own schemas are those that declare no resource.
	own, _ := filepath.Glob(filepath.Join(repo, cfg.SchemaDir, "*.go"))
	golden, _ := filepath.Glob("testdata/golden/schema/*.go")
	for _, p := range append(own, golden...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(own, p) && bytes.Contains(b, []byte("annotation.Resource{")) {
			continue
		}
		if err := copyFile(p, filepath.Join(mod, cfg.SchemaDir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyFile("testdata/golden/routes.yaml", filepath.Join(mod, filepath.FromSlash(cfg.RouteTable))); err != nil {
		t.Fatal(err)
	}
	return mod
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// compareTree compares files (by slash path) with the tree under dir.
func compareTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	var onDisk []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	rendered := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	if diff := cmp.Diff(onDisk, rendered); diff != "" {
		t.Fatalf("files (-want +got), run go test ./internal/gen -run Golden -update if intended:\n%s", diff)
	}
	for p, got := range files {
		wantB, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if diff := cmp.Diff(string(wantB), string(got)); diff != "" {
			t.Errorf("%s (-want +got), run go test ./internal/gen -run Golden -update if intended:\n%s", p, diff)
		}
	}
}

// Each testdata/errors/<case>.yaml is a route table with one kind of
// mistake; <case>.err holds the message generation must fail with. It runs
// in the golden module (the working directory), on its resources.
func routeTableMistakes(t *testing.T, cfg Config, dir string) {
	graph, err := loadGraph(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := readValidators(cfg, graph)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := buildResources(graph, newImportPaths(cfg.EntPackage), vals,
		func(t *gen.Type, field string) string { return fieldPos(cfg, t, field) })
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/errors")
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			table, err := parseRouteTable("routes.yaml", data)
			if err == nil {
				_, err = buildAPI(table, resources, newImportPaths(cfg.EntPackage))
			}
			if err == nil {
				t.Fatal("generation succeeded; want a mistake reported")
			}
			wantFile := strings.TrimSuffix(c, ".yaml") + ".err"
			if *update {
				os.WriteFile(wantFile, []byte(err.Error()+"\n"), 0o644)
			}
			want, _ := os.ReadFile(wantFile)
			if diff := cmp.Diff(strings.TrimSpace(string(want)), err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// The golden document, from a schema with every kind of member and a route
// table with every kind of operation, is a valid OpenAPI 3.1 document.
func TestGoldenDocumentIsValid(t *testing.T) {
	b, err := os.ReadFile("testdata/golden/want/internal/resources/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("want 3.1, got %s", doc.OpenAPI)
	}
	for _, p := range []string{"/v1/shelves/{id}", "/v1/shelf", "/v1/shelf_books/", "/v1/book", "/v1/books/{id}"} {
		if doc.Paths.Find(p) == nil {
			t.Errorf("no path %s", p)
		}
	}
}

// goldenServes runs, in the golden module, the tests of
// testdata/golden/tests beside the service's test harness: the golden
// resources served over HTTP on both databases — among them Book, whose
// members carry every field option the API honours.
func goldenServes(t *testing.T, repo, mod, dir string) {
	tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	harness := []string{"harness_test.go", "contract_test.go"}
	for _, h := range harness {
		tests = append(tests, filepath.Join(repo, "internal", "server", h))
	}
	for _, p := range tests {
		if err := copyFile(p, filepath.Join(mod, "internal", "server", filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^(TestSchemaOptions|TestRules)", "-v", "./internal/server")
	cmd.Dir = mod
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the golden module's tests failed: %v\n%s", err, b)
	}
	if n := strings.Count(string(b), "--- PASS: TestSchemaOptions") + strings.Count(string(b), "--- PASS: TestRules"); n < 13 {
		t.Fatalf("%d of the golden module's tests passed, want 13:\n%s", n, b)
	}
}

// goldenClientsCompile vets the golden module's Go client (a module of its
// own, outside the build of ./...) and type-checks its TypeScript client
// under strict, with the repository's pinned TypeScript.
func goldenClientsCompile(t *testing.T, repo, mod string, cfg Config) {
	vet := exec.Command("go", "vet", "./...")
	vet.Dir = filepath.Join(mod, cfg.GoClientDir)
	if b, err := vet.CombinedOutput(); err != nil {
		t.Fatalf("the golden Go client: %v\n%s", err, b)
	}
	ts := filepath.Join(repo, "clients", "typescript")
	tsc := filepath.Join(ts, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the TypeScript compiler is not installed (%v); internal/e2e installs it with npm ci", err)
		}
		t.Skip("the TypeScript compiler is not installed: run npm ci in clients/typescript")
	}
	dir := filepath.Join(mod, filepath.Dir(cfg.TSClientDir))
	for _, own := range []string{"test", "examples"} { // the service's, not the golden resources'
		if err := os.RemoveAll(filepath.Join(dir, own)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ts, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	check := exec.Command(tsc, "--noEmit", "-p", ".")
	check.Dir = dir
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the golden TypeScript client: %v\n%s", err, b)
	}
}

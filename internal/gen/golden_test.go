package gen

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files and expected errors in testdata/")

// goldenConfig is the layout of testdata/golden: a schema and a route table,
// with the handlers they must generate in want/.
func goldenConfig() Config {
	return Config{
		Root:        "testdata/golden",
		SchemaDir:   "schema",
		EntPackage:  "example.com/shop/ent",
		RouteTable:  "routes.yaml",
		HandlersDir: "want",
	}
}

var (
	goldenOnce      sync.Once
	goldenResources []*resourceView
	goldenErr       error
)

// goldenModel loads the golden schema (once: loading compiles it).
func goldenModel(t *testing.T) []*resourceView {
	t.Helper()
	goldenOnce.Do(func() {
		cfg := goldenConfig()
		graph, err := loadGraph(cfg)
		if err != nil {
			goldenErr = err
			return
		}
		goldenResources, goldenErr = buildResources(graph, newImportPaths(cfg.EntPackage))
	})
	if goldenErr != nil {
		t.Fatal(goldenErr)
	}
	return goldenResources
}

func TestGolden(t *testing.T) {
	cfg := goldenConfig()
	resources := goldenModel(t)
	table, err := readRouteTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model, err := buildAPI(table, resources, newImportPaths(cfg.EntPackage))
	if err != nil {
		t.Fatal(err)
	}
	files, err := renderAPI(cfg, model)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cfg.Root, cfg.HandlersDir)
	if *update {
		os.RemoveAll(want)
		os.MkdirAll(want, 0o755)
		for p, b := range files {
			if err := os.WriteFile(filepath.Join(cfg.Root, p), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, "want/"+e.Name())
	}
	var rendered []string
	for p := range files {
		rendered = append(rendered, p)
	}
	sort.Strings(rendered)
	if diff := cmp.Diff(onDisk, rendered); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	for p, got := range files {
		wantB, _ := os.ReadFile(filepath.Join(cfg.Root, p))
		if diff := cmp.Diff(string(wantB), string(got)); diff != "" {
			t.Errorf("%s (-want +got), run go test ./internal/gen -run Golden -update if intended:\n%s", p, diff)
		}
	}
}

// Each testdata/errors/<case>.yaml is a route table with one kind of
// mistake; <case>.err holds the message generation must fail with.
func TestRouteTableMistakes(t *testing.T) {
	resources := goldenModel(t)
	cases, _ := filepath.Glob("testdata/errors/*.yaml")
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
				_, err = buildAPI(table, resources, newImportPaths("example.com/shop/ent"))
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
	b, err := os.ReadFile("testdata/golden/want/openapi.json")
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

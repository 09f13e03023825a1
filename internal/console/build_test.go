package console

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bundleLimit is the most the console's files may weigh, gzipped.
const bundleLimit = 200 << 10

// The committed build is what the sources build to, byte for byte: a
// change to console/ (or to the client's runtime it bundles) without
// `make console` fails here, naming the files.
func TestBuildIsFresh(t *testing.T) {
	npmCI(t)
	out := t.TempDir()
	if _, err := run(t.Context(), srcDir, nil, bin("vite"), "build", "--logLevel", "warn", "--outDir", out, "--emptyOutDir"); err != nil {
		t.Fatal(err)
	}
	want, got := files(t, os.DirFS(out)), files(t, os.DirFS("dist"))
	var stale []string
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			stale = append(stale, name+" (differs or is missing)")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" (not built any more)")
		}
	}
	slices.Sort(stale)
	if len(stale) > 0 {
		t.Fatalf("internal/console/dist is stale; run `make console` and commit it:\n  %s", strings.Join(stale, "\n  "))
	}
}

// The console weighs less than 200 kB gzipped, all files together.
func TestBundleIsSmall(t *testing.T) {
	total := 0
	for name, b := range files(t, dist) {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(b)
		w.Close()
		t.Logf("%-40s %7d bytes, %6d gzipped", name, len(b), z.Len())
		total += z.Len()
	}
	t.Logf("the console: %d bytes gzipped (limit %d)", total, bundleLimit)
	if total >= bundleLimit {
		t.Fatalf("the console weighs %d bytes gzipped, over %d", total, bundleLimit)
	}
}

// The console type-checks under strict, and its unit tests pass: against
// the service's document and the generator's golden one.
func TestUnits(t *testing.T) {
	compile(t)
	tests, err := filepath.Glob(filepath.Join(srcDir, "build", "console", "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no unit tests compiled (%v)", err)
	}
	for i := range tests {
		tests[i], _ = filepath.Rel(srcDir, tests[i])
	}
	env := []string{
		"RECORDS_OPENAPI=" + abs(t, "../resources/openapi.json"),
		// The golden project's document: resources whose members have rules.
		"RECORDS_GOLDEN_OPENAPI=" + abs(t, "../gen/testdata/golden/want/internal/resources/openapi.json"),
	}
	out, err := run(t.Context(), srcDir, env, "node", append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	t.Log(out)
	if err != nil {
		t.Fatal(err)
	}
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// files reads every file of a build, by its name under dist/.
func files(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	root := "."
	if _, err := fs.Stat(fsys, "dist"); err == nil {
		root = "dist"
	}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package devloop

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSnapshotDiffNamesCreatedChangedAndRemovedFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema/a.go", "a")
	write("schema/b.go", "b")
	write("templates/api/x.tmpl", "x")
	before := take(root, []string{"schema", "templates"})

	write("schema/a.go", "a, longer")
	os.Remove(filepath.Join(root, "schema", "b.go"))
	write("templates/api/y.tmpl", "y")
	write("schema/.a.go.swp", "editor")
	write("schema/a.go~", "backup")
	write("elsewhere/z.go", "not watched")
	got := before.diff(take(root, []string{"schema", "templates"}))

	want := []string{"schema/a.go", "schema/b.go", "templates/api/y.tmpl"}
	if !slices.Equal(got, want) {
		t.Fatalf("diff = %v, want %v", got, want)
	}
	if again := take(root, []string{"schema", "templates"}); len(again.diff(again)) != 0 {
		t.Fatal("a snapshot differs from itself")
	}
}

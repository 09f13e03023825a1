package gen

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenClients renders both clients of the golden schema and route table.
func goldenClients(t *testing.T) map[string][]byte {
	t.Helper()
	cfg := goldenConfig()
	table, err := readRouteTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model, err := buildAPI(table, goldenModel(t), newImportPaths(cfg.EntPackage))
	if err != nil {
		t.Fatal(err)
	}
	cfg.GoClientDir, cfg.TSClientDir = "client/go", "client/ts"
	files, err := clientFiles(cfg, model)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The clients of the golden schema (every kind of member and operation)
// are testdata/golden/client; -update rewrites them.
func TestClientGolden(t *testing.T) {
	root := filepath.Join(goldenConfig().Root, "client")
	got := map[string]string{}
	for p, b := range goldenClients(t) {
		got[strings.TrimPrefix(p, "client/")] = string(b)
	}
	if *update {
		os.RemoveAll(root)
		for p, b := range got {
			os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
			if err := os.WriteFile(filepath.Join(root, p), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		want[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the golden clients (-want +got), run go test ./internal/gen -run ClientGolden -update if intended:\n%s", diff)
	}
}

// The golden Go client builds and vets on its own: a module of nothing
// but the standard library.
func TestClientGoldenBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := t.TempDir()
	files := map[string][]byte{"go.mod": []byte("module example.com/shop\n\ngo 1.23\n")}
	for p, b := range goldenClients(t) {
		if strings.HasPrefix(p, "client/go/") {
			files[strings.TrimPrefix(p, "client/go/")] = b
		}
	}
	for p, b := range files {
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "vet", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the golden client: %v\n%s", err, out)
	}
}

func TestClientNames(t *testing.T) {
	for in, want := range map[string]string{"new_user_group": "NewUserGroup", "provided_id": "ProvidedID",
		"insert_return_line_items": "InsertReturnLineItems", "url": "URL", "case": "Case"} {
		if got := goField(in); got != want {
			t.Errorf("goField(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"email": "email", "firstName": "firstName", "image-1": `"image-1"`, "$x": "$x", "1a": `"1a"`} {
		if got := tsKey(in); got != want {
			t.Errorf("tsKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := tsAccess("r", "data"); got != "r.data" {
		t.Errorf("tsAccess: %s", got)
	}
	if got := tsAccess("r", "a-b"); got != `r["a-b"]` {
		t.Errorf("tsAccess: %s", got)
	}
}

// A resource or operation named as the client's own types or members is
// refused, naming both.
func TestClientNamesCollide(t *testing.T) {
	cm := &clientModel{Resources: []*clientResource{{Type: "Event", Plural: "events", Service: "Events"}}}
	err := cm.checkNames()
	if err == nil || !strings.Contains(err.Error(), "the client's own type and the record of events are both named Event") ||
		!strings.Contains(err.Error(), "the client's own service and the service of events are both named Events") {
		t.Fatalf("want both collisions named, got %v", err)
	}
}

// An envelope the clients cannot type is refused with what it is.
func TestClientEnvelopeMustBeAnObject(t *testing.T) {
	r := goldenModel(t)[0]
	b := &envBuilder{model: &clientModel{}, byRes: map[*resourceView]*clientResource{r: newClientResource(r)}}
	op := &opView{Name: "Odd", Kind: "get", Resource: r, shape: &envNode{IsArray: true, Items: []*envNode{{Placeholder: "$record"}}}}
	if _, _, err := b.result(op, "OddResult"); err == nil || !strings.Contains(err.Error(), "not an array") {
		t.Fatalf("want the array refused, got %v", err)
	}
}

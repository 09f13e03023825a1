package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"records/internal/dbtest"
)

// copyRepo copies the repository's files (tracked and untracked, not
// ignored) into a temporary folder.
func copyRepo(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("listing the repository's files: %v", err)
	}
	dst := t.TempDir()
	for _, rel := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		src := filepath.Join(root, rel)
		info, err := os.Stat(src)
		if err != nil || info.IsDir() {
			continue // deleted in the working tree
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dst, rel)
		os.MkdirAll(filepath.Dir(target), 0o755)
		if err := os.WriteFile(target, b, info.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// run runs a command in dir and returns its combined output. Go builds
// there with -trimpath, so that the packages a copy of the repository has
// unchanged are the build cache's, not compiled again for its folder.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath")), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(file, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The spec-edit workflow: a developer adds a member to a schema and a route
// to the table, runs the generator, builds, and the server answers both.
func TestSpecEditWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the service from a copy of the repository")
	}
	dbtest.RequirePostgres(t) // a schema change writes a PostgreSQL migration too
	dir := copyRepo(t)
	env := []string{"RECORDSGEN_DEV_POSTGRES_URL=" + dbtest.PostgresURL()}

	edit(t, filepath.Join(dir, "schema", "customer.go"), `text("activationDate"),`, `text("activationDate"),
		text("loyalty_tier"),`)
	// A new resource: one schema file, nothing else.
	os.WriteFile(filepath.Join(dir, "schema", "shipment.go"), []byte(shipmentSchema), 0o644)
	routes := filepath.Join(dir, "schema", "routes.yaml")
	b, _ := os.ReadFile(routes)
	b = append(b, []byte(`
  - name: Find Customer
    kind: get
    resource: Customer
    route: GET /v1/customer/:id
    envelope: {customer: $record}
`)...)
	os.WriteFile(routes, b, 0o644)

	// The edit's migration follows the committed ones.
	committed, _ := filepath.Glob(filepath.Join(dir, "internal", "migrations", "sqlite", "*.sql"))
	next := fmt.Sprintf("%04d", len(committed)+1)

	// Before generating, check names what is stale, and fails.
	out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "check")
	for _, stale := range []string{"stale: ent/customer.go", "stale: internal/resources/customer.go", "stale: internal/resources/openapi.json", "stale: internal/resources/shipment.go (generate would create it)", "stale: internal/migrations/sqlite/" + next + "_schema.sql"} {
		if err == nil || !strings.Contains(out, stale) {
			t.Fatalf("check must fail naming %q: %v\n%s", stale, err, out)
		}
	}

	out, err = run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate", "--migration-name", "add_loyalty_tier")
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	for _, f := range []string{"internal/migrations/sqlite/" + next + "_add_loyalty_tier.sql", "internal/migrations/postgres/" + next + "_add_loyalty_tier.sql"} {
		sql, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(sql), "loyalty_tier") {
			t.Fatalf("%s: want a migration adding the column: %v\n%s", f, err, sql)
		}
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "check"); err != nil {
		t.Fatalf("check after generate: %v\n%s", err, out)
	}
	if out, err := run(t, dir, nil, "go", "build", "-o", "bin/records", "./cmd/records"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}

	checkEditServed(t, serveCopy(t, dir))

	// A mistake in the table is reported with its line, and nothing is written.
	before, _ := os.ReadFile(filepath.Join(dir, "internal", "resources", "routes.go"))
	os.WriteFile(routes, append(b, []byte("\n  - name: Broken\n    kind: fetch\n    resource: Customer\n    route: GET /v1/x\n    envelope: plain\n")...), 0o644)
	out, err = run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate")
	if err == nil || !strings.Contains(out, "schema/routes.yaml:") || !strings.Contains(out, `unknown kind "fetch"`) {
		t.Fatalf("a broken table must fail with file and line: %v\n%s", err, out)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "internal", "resources", "routes.go"))
	if !bytes.Equal(before, after) {
		t.Fatal("a failed generation changed a file")
	}
}

// shipmentSchema is a new resource: one schema file, nothing else.
const shipmentSchema = `package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// Shipment is a shipment.
type Shipment struct{ ent.Schema }

// Annotations of the Shipment.
func (Shipment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("shipments"),
		annotation.Resource{Type: "Shipment", Plural: "shipments", Object: "shipment"},
	}
}

// Mixin of the Shipment.
func (Shipment) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Shipment.
func (Shipment) Fields() []ent.Field {
	return []ent.Field{text("carrier"), integer("parcels"), date("shipped_on")}
}
`

// caller sends a request to a served copy and answers its status and its
// JSON body.
type caller func(method, path, body string) (int, map[string]any)

// serveCopy serves the copy's build on a fresh SQLite file (the first
// token is printed last), stopped when the test ends.
func serveCopy(t *testing.T, dir string) caller {
	srv := exec.Command(filepath.Join(dir, "bin", "records"), "serve", "--addr", "127.0.0.1:0",
		"--database-url", "sqlite:"+filepath.Join(dir, "data", "x.db"))
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	base, token := readServe(t, stdout)

	return func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
}

// checkEditServed checks that the served copy answers the edit: the new
// member, the new route and the new resource, in the document too.
func checkEditServed(t *testing.T, call caller) {
	t.Helper()
	status, created := call("POST", "/v1/customers", `{"email":"a@example.com","loyalty_tier":"gold"}`)
	if status != 201 || created["loyalty_tier"] != "gold" {
		t.Fatalf("the new member: %d %v", status, created)
	}
	status, found := call("GET", "/v1/customer/"+created["id"].(string), "")
	if status != 200 {
		t.Fatalf("the new route: %d %v", status, found)
	}
	if c, _ := found["customer"].(map[string]any); c["loyalty_tier"] != "gold" || c["email"] != "a@example.com" {
		t.Fatalf("the new route's envelope: %v", found)
	}
	// The new resource has the whole surface, and the document lists it.
	status, ship := call("POST", "/v1/shipments", `{"carrier":"DHL","parcels":"3","shipped_on":"2026-11-20"}`)
	if status != 201 || ship["parcels"] != float64(3) || ship["shipped_on"] != "2026-11-20" {
		t.Fatalf("POST /v1/shipments: %d %v", status, ship)
	}
	id := ship["id"].(string)
	if status, got := call("PATCH", "/v1/shipments/"+id, `{"carrier":"UPS"}`); status != 200 || got["carrier"] != "UPS" {
		t.Fatalf("PATCH /v1/shipments/%s: %d %v", id, status, got)
	}
	if status, list := call("GET", "/v1/shipments?filter[carrier]=UPS", ""); status != 200 || len(list["shipments"].([]any)) != 1 {
		t.Fatalf("GET /v1/shipments: %d %v", status, list)
	}
	if status, _ := call("DELETE", "/v1/shipments/"+id, ""); status != 200 {
		t.Fatalf("DELETE /v1/shipments/%s: %d", id, status)
	}
	if _, doc := call("GET", "/v1/openapi.json", ""); doc["paths"].(map[string]any)["/v1/shipments/{id}"] == nil {
		t.Fatal("the document lacks the new resource")
	}
}

var serving = regexp.MustCompile(`serving on (http://\S+)`)

// readServe reads `records serve`'s first lines: the first token's secret
// (the line after the one announcing it) and the address.
func readServe(t *testing.T, stdout io.Reader) (base, token string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "rk_") {
				token = line
			}
			if m := serving.FindStringSubmatch(line); m != nil {
				base = m[1]
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not start")
	}
	if base == "" || token == "" {
		t.Fatalf("serve printed no address or token (%q, %q)", base, token)
	}
	go io.Copy(io.Discard, stdout)
	return base, token
}

// An edit that would break clients or lose data is refused, naming what it
// breaks; --dry-run shows the plan and writes nothing; --allow-breaking
// writes it.
func TestBreakingEditsAreRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("generates in a copy of the repository")
	}
	dbtest.RequirePostgres(t)
	dir := copyRepo(t)
	env := []string{"RECORDSGEN_DEV_POSTGRES_URL=" + dbtest.PostgresURL()}
	edit(t, filepath.Join(dir, "schema", "customer.go"), `text("phone"),`, ``)
	out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate")
	for _, want := range []string{"clients: the member phone of Customer is gone", "data: drops the column customers.phone and its values (by the new migration internal/migrations/", "refused", "nothing was written"} {
		if err == nil || !strings.Contains(out, want) {
			t.Fatalf("generate must refuse naming %q: %v\n%s", want, err, out)
		}
	}
	if status, _ := run(t, dir, nil, "sh", "-c", "ls internal/migrations/postgres | wc -l"); strings.TrimSpace(status) != fmt.Sprint(countMigrations(t)) {
		t.Fatalf("a refused generate wrote a migration: %s", status)
	}
	out, err = run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate", "--dry-run")
	if err != nil || !strings.Contains(out, "would update ent/customer.go") || !strings.Contains(out, `DROP COLUMN "phone"`) {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "check"); err == nil {
		t.Fatalf("the dry run wrote files: %s", out)
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate", "--allow-breaking"); err != nil {
		t.Fatalf("--allow-breaking: %v\n%s", err, out)
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "check"); err != nil {
		t.Fatalf("after --allow-breaking: %v\n%s", err, out)
	}
}

func countMigrations(t *testing.T) int {
	files, err := filepath.Glob("../../internal/migrations/postgres/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	return len(files)
}

// A scaffolded resource, a child of another, generates and builds, and its
// parent expands it.
func TestScaffoldedResourceGeneratesAndBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the service from a copy of the repository")
	}
	dbtest.RequirePostgres(t)
	dir := copyRepo(t)
	env := []string{"RECORDSGEN_DEV_POSTGRES_URL=" + dbtest.PostgresURL()}
	out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "new", "resource", "Shipment",
		"--field", "carrier:text", "--field", "weight:number", "--field", "shipped_on:date", "--parent", "Return")
	if err != nil || !strings.Contains(out, "wrote schema/shipment.go") || !strings.Contains(out, "wrote schema/return.go") {
		t.Fatalf("scaffold: %v\n%s", err, out)
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "new", "resource", "Shipment"); err == nil {
		t.Fatalf("a second Shipment was scaffolded: %s", out)
	}
	if out, err := run(t, dir, env, "go", "run", "./cmd/recordsgen", "generate", "--migration-name", "add_shipments"); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	if out, err := run(t, dir, env, "go", "build", "./..."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "internal", "resources", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"/v1/shipments/{id}"`, `"shipped_on"`, `"/v1/shipments/{id}/history"`, `"return_id"`} {
		if !strings.Contains(string(doc), want) {
			t.Fatalf("the document lacks %s", want)
		}
	}
}

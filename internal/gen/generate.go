// Package gen is the records service's code generator. From the ent schema
// and the route table (schema/) it produces ent's data layer (ent/), the
// resources package (internal/resources: each resource's descriptor,
// encoder and row scanner, every operation, the OpenAPI document), the Go
// and TypeScript clients, and versioned migration files for SQLite and
// PostgreSQL. Generate returns files; only the caller writes.
package gen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"path/filepath"

	"entgo.io/ent/entc/gen"
)

// Config locates the inputs and outputs of a generation. Paths are relative
// to Root and written with slashes.
type Config struct {
	Root          string // repository root; the working directory must be inside its module
	SchemaDir     string // ent schemas, e.g. "schema"
	EntDir        string // ent's generated package, e.g. "ent"
	EntPackage    string // import path of EntDir, e.g. "records/ent"
	MigrationsDir string // migration files, e.g. "internal/migrations"
	RouteTable    string // the route table, e.g. "schema/routes.yaml"
	Policies      string // the roles' policies, e.g. "schema/policies.yaml"
	ResourcesDir  string // the generated resources package, e.g. "internal/resources"
	// MigrationName names a new migration file; empty picks "init" or "schema".
	MigrationName string
	// DevPostgresURL is a PostgreSQL where a scratch schema can be made to
	// write the PostgreSQL migration set.
	DevPostgresURL string
	// GoClientDir and TSClientDir hold the generated clients: the Go
	// package, e.g. "client", and the TypeScript sources; "" renders none.
	GoClientDir string
	TSClientDir string
}

// DefaultConfig is the layout of this repository.
func DefaultConfig() Config {
	return Config{
		Root:          ".",
		SchemaDir:     "schema",
		EntDir:        "ent",
		EntPackage:    "records/ent",
		MigrationsDir: "internal/migrations",
		RouteTable:    "schema/routes.yaml",
		Policies:      "schema/policies.yaml",
		ResourcesDir:  "internal/resources",
		GoClientDir:   "client",
		TSClientDir:   "clients/typescript/src",
	}
}

func (c Config) path(rel string) string { return filepath.Join(c.Root, filepath.FromSlash(rel)) }

// Owned are the folders that hold only generated files.
func (c Config) Owned() []string {
	return append([]string{c.EntDir, c.ResourcesDir}, c.clientDirs()...)
}

// Generate produces every generated file from the schema. It writes nothing.
func Generate(ctx context.Context, cfg Config) (*Output, error) {
	// The route table is read first: its mistakes are found in
	// milliseconds, before the schema is compiled.
	table, err := readRouteTable(cfg)
	if err != nil {
		return nil, err
	}
	graph, err := loadGraph(cfg)
	if err != nil {
		return nil, err
	}
	paths := newImportPaths(cfg.EntPackage)
	vals, err := readValidators(cfg, graph)
	if err != nil {
		return nil, err
	}
	pos := func(t *gen.Type, field string) string { return fieldPos(cfg, t, field) }
	resources, err := buildResources(graph, paths, vals, pos)
	if err != nil {
		return nil, err
	}
	model, err := buildAPI(table, resources, paths)
	if err != nil {
		return nil, err
	}
	if model.Policies, err = readPolicies(cfg, resources); err != nil {
		return nil, err
	}
	model.PoliciesFile = cfg.Policies
	out := &Output{Files: map[string][]byte{}, Owned: cfg.Owned()}
	handlers, err := renderAPI(cfg, model)
	if err != nil {
		return nil, err
	}
	maps.Copy(out.Files, handlers)
	entOut, err := entFiles(cfg, graph)
	if err != nil {
		return nil, err
	}
	maps.Copy(out.Files, entOut)
	migrations, notes, err := migrationFiles(ctx, cfg, graph)
	if err != nil {
		return nil, err
	}
	name, constraints, err := constraintsFile(cfg, graph)
	if err != nil {
		return nil, err
	}
	out.Files[name] = constraints
	maps.Copy(out.Files, migrations)
	out.Notes = append(out.Notes, notes...)
	return out, nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

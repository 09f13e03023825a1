package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"strings"
	"sync"
	"text/template"

	"records/templates"
)

// clientOutputs are the clients' files: each a template of
// templates/client rendered with the clients' model into its client's
// folder; a client whose folder is "" is not rendered.
var clientOutputs = []struct {
	dir        func(Config) string
	file, tmpl string
}{
	{goClient, "client.go", "client.go.tmpl"},
	{goClient, "problem.go", "problem.go.tmpl"},
	{goClient, "params.go", "params.go.tmpl"},
	{goClient, "events.go", "events.go.tmpl"},
	{goClient, "records.go", "records.go.tmpl"},
	{goClient, "operations.go", "operations.go.tmpl"},
	{goClient, "routes.go", "routes.go.tmpl"},
	{tsClient, "runtime.ts", "runtime.ts.tmpl"},
	{tsClient, "records.ts", "records.ts.tmpl"},
}

func goClient(c Config) string { return c.GoClientDir }
func tsClient(c Config) string { return c.TSClientDir }

// clientTemplates are the clients' templates, parsed once.
var clientTemplates = sync.OnceValues(func() (*template.Template, error) {
	return template.New("client").ParseFS(templates.FS, "client/*.tmpl")
})

// clientFiles renders the clients: the Go package into cfg.GoClientDir and
// the TypeScript sources into cfg.TSClientDir. Go files are gofmt'd.
func clientFiles(cfg Config, m *apiModel) (map[string][]byte, error) {
	files := map[string][]byte{}
	if len(cfg.clientDirs()) == 0 {
		return files, nil
	}
	cm, err := buildClientModel(m)
	if err != nil {
		return nil, err
	}
	t, err := clientTemplates()
	if err != nil {
		return nil, err
	}
	for _, o := range clientOutputs {
		dir := o.dir(cfg)
		if dir == "" {
			continue
		}
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, o.tmpl, cm); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", path.Join(dir, o.file), err)
		}
		src := buf.Bytes()
		if strings.HasSuffix(o.file, ".go") {
			if src, err = format.Source(src); err != nil {
				return nil, fmt.Errorf("formatting %s: %w\n%s", path.Join(dir, o.file), err, numbered(buf.Bytes()))
			}
		}
		files[path.Join(dir, o.file)] = src
	}
	return files, nil
}

// clientDirs are the clients' folders, which the generation owns.
func (c Config) clientDirs() []string {
	var dirs []string
	for _, d := range []string{c.GoClientDir, c.TSClientDir} {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

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

// Imports are the packages routes.go uses.
func (m *apiModel) Imports() []string {
	out := []string{m.paths.ent, m.paths.runtime("edge"), m.paths.runtime("engine"), m.paths.runtime("spec")}
	for _, op := range m.Ops {
		uses := len(op.Set) > 0
		for _, p := range op.Envelope {
			uses = uses || p.UsesWire()
		}
		if uses {
			return append(out, m.paths.runtime("wire"))
		}
	}
	return out
}

var (
	parseOnce sync.Once
	apiTmpl   *template.Template
	parseErr  error
)

// apiTemplates parses the API's templates once.
func apiTemplates() (*template.Template, error) {
	parseOnce.Do(func() {
		apiTmpl, parseErr = template.New("api").ParseFS(templates.FS, "api/*.tmpl")
	})
	return apiTmpl, parseErr
}

// renderAPI renders the handlers package: one file per resource and the routes.
func renderAPI(dir string, m *apiModel) (map[string][]byte, error) {
	t, err := apiTemplates()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	render := func(name, tmpl string, data any) error {
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, tmpl, data); err != nil {
			return fmt.Errorf("rendering %s: %w", name, err)
		}
		src, err := format.Source(buf.Bytes())
		if err != nil {
			return fmt.Errorf("formatting %s: %w\n%s", name, err, numbered(buf.Bytes()))
		}
		files[path.Join(dir, name)] = src
		return nil
	}
	for _, r := range m.Resources {
		if err := render(r.File, "resource.go.tmpl", r); err != nil {
			return nil, err
		}
	}
	if err := render("routes.go", "routes.go.tmpl", m); err != nil {
		return nil, err
	}
	if err := render("openapi.go", "openapi.go.tmpl", m); err != nil {
		return nil, err
	}
	doc, err := renderOpenAPI(m)
	if err != nil {
		return nil, fmt.Errorf("rendering the OpenAPI document: %w", err)
	}
	files[path.Join(dir, "openapi.json")] = doc
	return files, nil
}

// numbered prefixes each line with its number, for a failed format's source.
func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, line)
	}
	return b.String()
}

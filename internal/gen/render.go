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

// An output is one generated file: rendered by a template, or written by
// Go code (Render) when it is not Go source, once for the API or once per
// resource (PerResource, named by Name). A new output is one row of
// outputs. Dir is the folder the file goes in; the handlers' by default.
type output struct {
	Template    string
	Render      func(m *apiModel) ([]byte, error)
	File        string
	PerResource bool
	Name        func(r *resourceView) string
	Dir         func(c Config) string
	// Skip leaves the output out for a model that does not need it.
	Skip func(m *apiModel) bool
}

// outputs are the generated files beside ent's, in the order rendered.
var outputs = []output{
	{Template: "resource.go.tmpl", PerResource: true, Name: func(r *resourceView) string { return r.File }},
	{Template: "routes.go.tmpl", File: "routes.go"},
	{Template: "openapi.go.tmpl", File: "openapi.go"},
	{Render: renderOpenAPI, File: "openapi.json"},
}

// renderAPI renders every output of the API model.
func renderAPI(cfg Config, m *apiModel) (map[string][]byte, error) {
	t, err := apiTemplates()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, o := range outputs {
		if o.Skip != nil && o.Skip(m) {
			continue
		}
		dir := cfg.HandlersDir
		if o.Dir != nil {
			dir = o.Dir(cfg)
		}
		if !o.PerResource {
			b, err := o.render(t, o.File, m)
			if err != nil {
				return nil, err
			}
			files[path.Join(dir, o.File)] = b
			continue
		}
		for _, r := range m.Resources {
			name := o.Name(r)
			b, err := o.render(t, name, r)
			if err != nil {
				return nil, err
			}
			files[path.Join(dir, name)] = b
		}
	}
	return files, nil
}

// render makes one file of the output: the template executed on data and,
// for Go source, formatted.
func (o output) render(t *template.Template, name string, data any) ([]byte, error) {
	if o.Render != nil {
		b, err := o.Render(data.(*apiModel))
		if err != nil {
			return nil, fmt.Errorf("rendering %s: %w", name, err)
		}
		return b, nil
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, o.Template, data); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	if !strings.HasSuffix(name, ".go") {
		return buf.Bytes(), nil
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting %s: %w\n%s", name, err, numbered(buf.Bytes()))
	}
	return src, nil
}

// numbered prefixes each line with its number, for a failed format's source.
func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, line)
	}
	return b.String()
}

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
	out := []string{m.paths.runtime("edge"), m.paths.runtime("engine"), m.paths.runtime("spec")}
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

// templateSets are the generator's templates, parsed once, by folder of
// templates/: the resources' ("api") and the clients' ("client").
var templateSets = map[string]func() (*template.Template, error){
	"api":    parseSet("api"),
	"client": parseSet("client"),
}

// funcs are the functions templates call: naming decisions made in Go,
// where they are unit-tested.
var funcs = template.FuncMap{"goText": goText}

func parseSet(dir string) func() (*template.Template, error) {
	return sync.OnceValues(func() (*template.Template, error) {
		return template.New(dir).Funcs(funcs).ParseFS(templates.FS, dir+"/*.tmpl")
	})
}

// An output is one generated file beside ent's: a template of Set rendered
// with the set's model (the API's, or the clients' made from it), Go code
// (Render) for a file that is not made from a template, or a Go file of
// templates/ copied as it is (Copy); once, or once per resource
// (PerResource, named by Name). Dir is its folder (the
// resources' when nil; a row whose Dir is "" is not rendered). A new output
// is one row of outputs.
type output struct {
	Set, Template string
	Render        func(m *apiModel) ([]byte, error)
	Copy          string
	File          string
	PerResource   bool
	Name          func(r *resourceView) string
	Dir           func(c Config) string
}

// outputs are the generated files beside ent's, in the order rendered.
var outputs = []output{
	{Set: "api", Template: "resource.go.tmpl", PerResource: true, Name: func(r *resourceView) string { return r.File }},
	{Set: "api", Template: "routes.go.tmpl", File: "routes.go"},
	{Set: "api", Template: "openapi.go.tmpl", File: "openapi.go"},
	{Set: "api", Template: "rules.go.tmpl", File: "rules.go"},
	{Render: renderOpenAPI, File: "openapi.json"},
	{Render: renderPolicies, File: "policies.go"},
	{Set: "client", Template: "go.mod.tmpl", File: "go.mod", Dir: goClient},
	{Set: "client", Template: "client.go.tmpl", File: "client.go", Dir: goClient},
	{Copy: "client/gosrc/transport.go", File: "transport.go", Dir: goClient},
	{Copy: "client/gosrc/problem.go", File: "problem.go", Dir: goClient},
	{Set: "client", Template: "codes.go.tmpl", File: "codes.go", Dir: goClient},
	{Copy: "client/gosrc/params.go", File: "params.go", Dir: goClient},
	{Copy: "client/gosrc/events.go", File: "events.go", Dir: goClient},
	{Copy: "client/gosrc/me.go", File: "me.go", Dir: goClient},
	{Copy: "client/gosrc/aggregate.go", File: "aggregate.go", Dir: goClient},
	{Set: "client", Template: "records.go.tmpl", File: "records.go", Dir: goClient},
	{Set: "client", Template: "operations.go.tmpl", File: "operations.go", Dir: goClient},
	{Set: "client", Template: "routes.go.tmpl", File: "routes.go", Dir: goClient},
	{Set: "client", Template: "runtime.ts.tmpl", File: "runtime.ts", Dir: tsClient},
	{Set: "client", Template: "records.ts.tmpl", File: "records.ts", Dir: tsClient},
}

func goClient(c Config) string { return c.GoClientDir }
func tsClient(c Config) string { return c.TSClientDir }

// renderAPI renders every output of the API model.
func renderAPI(cfg Config, m *apiModel) (map[string][]byte, error) {
	models := map[string]func() (any, error){
		"api": func() (any, error) { return m, nil },
		"client": sync.OnceValues(func() (any, error) {
			cm, err := buildClientModel(m)
			if err != nil {
				return nil, err
			}
			cm.GoModule = path.Join(m.paths.module, cfg.GoClientDir)
			return cm, nil
		}),
	}
	files := map[string][]byte{}
	for _, o := range outputs {
		dir := cfg.ResourcesDir
		if o.Dir != nil {
			dir = o.Dir(cfg)
		}
		if dir == "" {
			continue
		}
		var data any = m
		var t *template.Template
		if o.Render == nil && o.Copy == "" {
			var err error
			if data, err = models[o.Set](); err != nil {
				return nil, err
			}
			if t, err = templateSets[o.Set](); err != nil {
				return nil, err
			}
		}
		if !o.PerResource {
			b, err := o.render(t, o.File, data)
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
	if o.Copy != "" {
		src, err := templates.FS.ReadFile(o.Copy)
		if err != nil {
			return nil, err
		}
		return format.Source(append([]byte(goHeader+"\n"), src...))
	}
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

// goHeader starts every Go file the generator writes.
const goHeader = "// Code generated by recordsgen. DO NOT EDIT.\n"

// numbered prefixes each line with its number, for a failed format's source.
func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, line)
	}
	return b.String()
}

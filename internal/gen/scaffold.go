package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"
)

// NewResource describes a resource to scaffold: recordsgen new resource.
type NewResource struct {
	Type   string   // the contract's name, e.g. "Shipment"
	Plural string   // e.g. "shipments"; derived from Type when empty
	Fields []string // name:type, type one of fieldTypes
	Parent string   // the parent resource's contract name, when a child
}

// fieldTypes are the member types a scaffold writes, as the schema's helpers
// (schema/fields.go) name them.
var fieldTypes = []string{"text", "integer", "number", "numeric", "boolean", "date", "datetime"}

// Scaffold returns the schema files that add the resource r: its own file,
// and for a child the parent's file given the edge back to it. It reads the
// schema folder; it writes nothing.
func Scaffold(cfg Config, r NewResource) (map[string][]byte, error) {
	if !regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`).MatchString(r.Type) {
		return nil, fmt.Errorf("resource %q: name it in UpperCamelCase, e.g. Shipment", r.Type)
	}
	snake := toSnake(r.Type)
	r.Plural = Plural(r)
	goName := r.Type
	if token.Lookup(strings.ToLower(goName)).IsKeyword() {
		goName += "Record" // ent cannot name a type Return or Case
	}
	schemaDir := cfg.path(cfg.SchemaDir)
	existing, err := schemaTypes(schemaDir)
	if err != nil {
		return nil, err
	}
	for _, e := range existing {
		if e.typ == r.Type || e.plural == r.Plural || e.goName == goName {
			return nil, fmt.Errorf("resource %s: %s already declares %s (plural %s)", r.Type, e.file, e.typ, e.plural)
		}
	}
	v := scaffoldView{GoName: goName, Type: r.Type, Plural: r.Plural, Object: snake}
	for _, f := range r.Fields {
		name, typ, ok := strings.Cut(f, ":")
		switch {
		case !ok || !memberName.MatchString(name) || name == "_":
			return nil, fmt.Errorf("field %q: write name:type, e.g. carrier:text", f)
		case !slices.Contains(fieldTypes, typ):
			return nil, fmt.Errorf("field %q: the type is one of %s", f, strings.Join(fieldTypes, ", "))
		case name == "id" || name == "version" || name == "team_id":
			return nil, fmt.Errorf("field %q: every resource has %s already", f, name)
		}
		v.Fields = append(v.Fields, fmt.Sprintf("%s(%q)", typ, name))
	}
	files := map[string][]byte{}
	if r.Parent != "" {
		i := slices.IndexFunc(existing, func(e schemaType) bool { return e.typ == r.Parent })
		if i < 0 {
			return nil, fmt.Errorf("parent %q: no resource of that name in %s", r.Parent, cfg.SchemaDir)
		}
		p := existing[i]
		v.ParentGo, v.ParentField, v.ParentEdge = p.goName, p.object+"_id", p.object
		v.Fields = append([]string{fmt.Sprintf("text(%q)", v.ParentField)}, v.Fields...)
		parentFile := path.Join(cfg.SchemaDir, p.file)
		src, err := withEdge(filepath.Join(schemaDir, p.file), p.goName, r.Plural, goName)
		if err != nil {
			return nil, fmt.Errorf("giving %s the edge to %s: %w", p.file, r.Type, err)
		}
		files[parentFile] = src
	}
	var b bytes.Buffer
	if err := scaffoldTemplate.Execute(&b, v); err != nil {
		return nil, err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the scaffold: %w", err)
	}
	files[path.Join(cfg.SchemaDir, strings.ToLower(r.Type)+".go")] = src
	return files, nil
}

// scaffoldView is everything the template needs, decided.
type scaffoldView struct {
	GoName, Type, Plural, Object string
	Fields                       []string
	ParentGo                     string // the parent's Go type, when a child
	ParentField, ParentEdge      string
}

var scaffoldTemplate = template.Must(template.New("resource").Parse(`package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// {{ .GoName }} is a {{ .Object }}.
type {{ .GoName }} struct {
	ent.Schema
}

// Annotations of the {{ .GoName }}.
func ({{ .GoName }}) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table({{ printf "%q" .Plural }}),
		annotation.Resource{Type: {{ printf "%q" .Type }}, Plural: {{ printf "%q" .Plural }}, Object: {{ printf "%q" .Object }}},
	}
}

// Mixin of the {{ .GoName }}.
func ({{ .GoName }}) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
{{- if .ParentGo }}
		ChildOf{Field: {{ printf "%q" .ParentField }}, Edge: {{ printf "%q" .ParentEdge }}, Parent: {{ .ParentGo }}.Type, Ref: {{ printf "%q" .Plural }}},
{{- end }}
	}
}

// Fields of the {{ .GoName }}.
func ({{ .GoName }}) Fields() []ent.Field {
	return []ent.Field{
{{- range .Fields }}
		{{ . }},
{{- end }}
	}
}
`))

// schemaType is a resource a schema file declares.
type schemaType struct {
	file, goName, typ, plural, object string
}

var resourceAnnotation = regexp.MustCompile(`func \((\w+)\) Annotations\(\)[\s\S]*?annotation\.Resource\{Type: "(\w+)", Plural: "(\w+)", Object: "(\w+)"\}`)

// schemaTypes lists the resources the schema folder declares.
func schemaTypes(dir string) ([]schemaType, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []schemaType
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, m := range resourceAnnotation.FindAllSubmatch(b, -1) {
			out = append(out, schemaType{file: e.Name(), goName: string(m[1]), typ: string(m[2]), plural: string(m[3]), object: string(m[4])})
		}
	}
	return out, nil
}

// withEdge returns the schema file of goName with an edge named name to
// child added to its Edges (made when it has none): deleting the parent
// deletes the child.
func withEdge(file, goName, name, child string) ([]byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	edgeExpr := fmt.Sprintf("edge.To(%q, %s.Type).\n\t\t\tAnnotations(entsql.OnDelete(entsql.Cascade))", name, child)
	at := -1 // where the edge goes: the line of the Edges list's closing brace
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Edges" || fn.Recv == nil || len(fn.Recv.List) != 1 {
			continue
		}
		if id, ok := fn.Recv.List[0].Type.(*ast.Ident); !ok || id.Name != goName {
			continue
		}
		for _, st := range fn.Body.List {
			if ret, ok := st.(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				if lit, ok := ret.Results[0].(*ast.CompositeLit); ok {
					at = bytes.LastIndexByte(src[:fset.Position(lit.Rbrace).Offset], '\n') + 1
				}
			}
		}
	}
	var b bytes.Buffer
	if at > 0 {
		b.Write(src[:at])
		b.WriteString("\t\t" + edgeExpr + ",\n")
		b.Write(src[at:])
	} else {
		b.Write(src)
		fmt.Fprintf(&b, "\n// Edges of the %s.\nfunc (%s) Edges() []ent.Edge {\n\treturn []ent.Edge{\n\t\t%s,\n\t}\n}\n", goName, goName, edgeExpr)
	}
	fset = token.NewFileSet()
	f, err = parser.ParseFile(fset, file, b.Bytes(), parser.ParseComments)
	if err != nil {
		return nil, err
	}
	astutil.AddImport(fset, f, "entgo.io/ent/schema/edge")
	astutil.AddImport(fset, f, "entgo.io/ent/dialect/entsql")
	b.Reset()
	if err := format.Node(&b, fset, f); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}

// toSnake writes an UpperCamelCase name in snake_case: PurchaseOrder → purchase_order.
func toSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Plural is the collection name r gets: its Plural, or its name made one.
func Plural(r NewResource) string {
	if r.Plural != "" {
		return r.Plural
	}
	return plural(toSnake(r.Type))
}

// plural makes an English plural of a snake_case name, for the common cases.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ay") && !strings.HasSuffix(s, "ey") && !strings.HasSuffix(s, "oy"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

package gen

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"entgo.io/ent/entc/gen"

	"records/internal/annotation"
	"records/internal/spec"
)

// apiModel is the view model of the generated API: every decision made,
// so the templates only print.
type apiModel struct {
	paths     importPaths
	Resources []*resourceView
	Ops       []*opView
	Routes    []*routeView
	// Policies is the text of the policies file, checked; PoliciesFile
	// its name.
	Policies, PoliciesFile string
}

// resourceView is one resource: an ent type with annotation.Resource.
type resourceView struct {
	paths  importPaths
	Name   string // ent's type name, e.g. "ReturnRecord"
	Pkg    string // ent's package, e.g. "returnrecord"
	Var    string // stem of Go identifiers, e.g. "returnRecord"
	Type   string // the contract's name, e.g. "Return"
	Plural string
	Object string
	Table  string // the SQL table
	File   string // generated file, relative to the resources folder
	ID     *fieldView
	// Fields are the members answered, in order, the id first; hidden and
	// sensitive fields excluded.
	Fields []*fieldView
	// WriteOnly are the sensitive members: written, never answered.
	WriteOnly []*fieldView
	Embeds    []*embedView
	// Expands are the related records a read can expand, by name.
	Expands []*expandView
	// Secret is the hidden field holding a secret's hash, if any.
	Secret *fieldView
	// Unique maps unique columns to members, for conflicts.
	Unique []pair
	// Members lists the names a body may write, sorted.
	Members []string
}

// Writable are the fields a client may write (not the id, not read-only),
// the sensitive ones last.
func (r *resourceView) Writable() []*fieldView {
	var out []*fieldView
	for _, f := range r.Fields {
		if !f.IsID && !f.ReadOnly {
			out = append(out, f)
		}
	}
	return append(out, r.WriteOnly...)
}

// Parents are the fields that name a parent record.
func (r *resourceView) Parents() []*fieldView {
	var out []*fieldView
	for _, f := range r.Fields {
		if f.Parent != nil {
			out = append(out, f)
		}
	}
	return out
}

// ReadOnly are the members answered but never written, but the id.
func (r *resourceView) ReadOnly() []*fieldView {
	var out []*fieldView
	for _, f := range r.Fields {
		if f.ReadOnly && !f.IsID {
			out = append(out, f)
		}
	}
	return out
}

// Filterable are the members a list may filter and order by: all but the
// JSON documents.
func (r *resourceView) Filterable() []*fieldView {
	var out []*fieldView
	for _, f := range r.Fields {
		if f.Filterable() {
			out = append(out, f)
		}
	}
	return out
}

// expandView is a kind of related record a read can expand: the
// resource's children (one query per page), or a child's parent.
type expandView struct {
	Name     string        // e.g. "return_line_items", "return"
	Children bool          // children of this resource, else its parent
	Other    *resourceView // the children's or the parent's resource
	FKColumn string        // the children's column naming their parent
	FKGoName string        // the struct field naming the parent (the child's)
}

// Imports are the import paths of the resource's file; "" separates groups.
func (r *resourceView) Imports() []string {
	std := []string{"database/sql"}
	for _, f := range r.Fields {
		switch f.GoType {
		case "json.RawMessage", "map[string]string":
			std = append(std, "encoding/json")
		case "time.Time":
			std = append(std, "time")
		}
	}
	if len(r.Embeds) > 0 {
		std = append(std, "context", "fmt")
	}
	for _, f := range r.Writable() {
		if f.UsesRegexp() {
			std = append(std, "regexp")
		}
	}
	p := r.paths
	own := []string{p.runtime("engine"), p.runtime("spec"), p.runtime("wire")}
	for _, f := range r.Writable() {
		if f.Stamp != "" {
			own = append(own, p.runtime("stamp"))
		}
	}
	if len(r.Embeds) > 0 {
		own = append(own, p.runtime("problem"))
	}
	slices.Sort(std)
	slices.Sort(own)
	return slices.Concat(slices.Compact(std), []string{""}, slices.Compact(own))
}

// RulesField is the resource's member of the generated Rules: its plural
// as a Go name, e.g. "Returns".
func (r *resourceView) RulesField() string { return goName(r.Plural) }

// RuntimePath is the import path of a runtime package, for templates.
func (m *apiModel) RuntimePath(pkg string) string { return m.paths.runtime(pkg) }

// Rules are the members whose values keep a rule beyond their type.
func (r *resourceView) Rules() []*fieldView {
	var out []*fieldView
	for _, f := range r.Writable() {
		if f.RuleVar != "" {
			out = append(out, f)
		}
	}
	return out
}

// field returns the member named name.
func (r *resourceView) field(name string) *fieldView {
	for _, f := range r.Fields {
		if f.Member == name {
			return f
		}
	}
	return nil
}

// embedView is an edge whose records are a member of the parent.
type embedView struct {
	Member    string        // e.g. "work_order_line_items"
	Key       string        // as fieldView.Key
	GoName    string        // the edge's struct field under Edges
	Child     *resourceView // the embedded resource
	ChildFK   *fieldView    // the child's member naming the parent
	ChildName string
}

// kinds of operation, as the route table names them (package spec, which
// the runtime implements).
var kinds = spec.KindNames()

// KindConst is the operation's kind as a constant of package spec:
// get_or_create → GetOrCreate.
func (op *opView) KindConst() string { return goName(string(op.Kind)) }

// kindList writes kinds as the route table does, joined by sep.
func kindList(kinds []spec.Kind, sep string) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, sep)
}

// importPaths are where generated code finds the runtime.
type importPaths struct {
	module string // the module, whose internal/ holds the runtime, e.g. "records"
}

// newImportPaths finds the module from ent's package, which is its ent/.
func newImportPaths(entPackage string) importPaths {
	return importPaths{module: path.Dir(entPackage)}
}

// runtime is the import path of a runtime package, e.g. "records/internal/api".
func (p importPaths) runtime(pkg string) string { return p.module + "/internal/" + pkg }

// positions tell where the schema declares a field: file:line.
type positions func(t *gen.Type, field string) string

// buildResources reads the resources from ent's graph, with what the
// fields' validators enforce (vals) and where each field is declared (pos).
func buildResources(graph *gen.Graph, paths importPaths, vals validators, pos positions) ([]*resourceView, error) {
	byName := map[string]*resourceView{}
	var out []*resourceView
	for _, t := range graph.Nodes {
		ra, ok, err := annotation.Decode[annotation.Resource](t.Annotations, annotation.ResourceName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if !ok {
			continue
		}
		r := &resourceView{
			paths:  paths,
			Name:   t.Name,
			Pkg:    t.Package(),
			Var:    lowerFirst(t.Name),
			Type:   ra.Type,
			Plural: ra.Plural,
			Object: ra.Object,
			Table:  t.Table(),
			File:   t.Package() + ".go",
		}
		byName[t.Name] = r
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Plural < out[j].Plural })
	for _, t := range graph.Nodes {
		r := byName[t.Name]
		if r == nil {
			continue
		}
		if err := fillResource(r, t, byName, vals, pos); err != nil {
			return nil, fmt.Errorf("resource %s: %w", r.Type, err)
		}
	}
	return out, nil
}

// fillResource reads one resource's members, embedded and expandable
// edges and unique members from its ent type.
func fillResource(r *resourceView, t *gen.Type, byName map[string]*resourceView, vals validators, pos positions) error {
	if err := fillFields(r, t, byName, vals, pos); err != nil {
		return err
	}
	if err := fillEmbeds(r, t, byName); err != nil {
		return err
	}
	fillExpands(r, t, byName)
	fillUnique(r, t)
	for i, f := range r.Fields {
		f.Key = keyText(f.Member, i == 0)
		f.setScan()
	}
	for _, e := range r.Embeds {
		e.Key = keyText(e.Member, false)
	}
	for _, f := range r.Writable() {
		r.Members = append(r.Members, f.Member)
	}
	for _, e := range r.Embeds {
		r.Members = append(r.Members, e.Member)
	}
	sort.Strings(r.Members)
	return nil
}

// fillFields reads the members: the id, then every field that is not
// hidden, each knowing the parent it names, if any, and what the schema's
// options say of it. A field the API cannot serve is an error at its
// position in the schema.
func fillFields(r *resourceView, t *gen.Type, byName map[string]*resourceView, vals validators, pos positions) error {
	parents := map[string]*resourceView{}
	for _, e := range t.Edges {
		if f := e.Field(); f != nil && e.IsInverse() && byName[e.Type.Name] != nil {
			parents[f.Name] = byName[e.Type.Name]
		}
	}
	r.ID = &fieldView{
		Member: "id", GoName: "ID", ColumnName: "id", Kind: "string", GoType: "string", StructType: "string",
		Convert: "ID", Appender: "AppendString", IsID: true,
	}
	r.Fields = append(r.Fields, r.ID)
	indexed := map[string]bool{}
	for _, idx := range t.Indexes {
		for _, c := range idx.Columns {
			indexed[c] = true
		}
	}
	for _, f := range t.Fields {
		fa, _, err := annotation.Decode[annotation.Field](f.Annotations, annotation.FieldName)
		if err != nil {
			return err
		}
		if _, secret := f.Annotations[annotation.SecretName]; secret {
			r.Secret = &fieldView{Member: f.Name, GoName: f.StructField(), ColumnName: f.StorageKey()}
		}
		if fa.Hidden && fa.Search != "" {
			return fmt.Errorf("%s: field %s: a hidden member cannot be searchable", pos(t, f.Name), f.Name)
		}
		if fa.Hidden {
			continue
		}
		fv, err := newField(f, fa)
		if err == nil {
			bounds, _ := vals.field(t.Name, f.Name)
			err = applyOptions(fv, f, bounds)
		}
		if err == nil {
			err = checkSearch(fv)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", pos(t, f.Name), err)
		}
		fv.Parent = parents[f.Name]
		fv.Owner = r.Type
		if fv.Kind == "string" && fv.Parent == nil && (fa.Sortable || f.Unique || indexed[f.StorageKey()]) {
			// A parent's id is checked against the parent's rows instead.
			fv.Input = "IndexedString"
		}
		if fv.RuleDecl() != "" {
			fv.RuleVar = r.Var + fv.GoName + "Rule"
		}
		if fv.Sensitive {
			r.WriteOnly = append(r.WriteOnly, fv)
			continue
		}
		r.Fields = append(r.Fields, fv)
	}
	return nil
}

// fillEmbeds reads the edges whose records are members of the record.
func fillEmbeds(r *resourceView, t *gen.Type, byName map[string]*resourceView) error {
	for _, e := range t.Edges {
		ea, _, err := annotation.Decode[annotation.Edge](e.Annotations, annotation.EdgeName)
		if err != nil {
			return err
		}
		if !ea.Embed {
			continue
		}
		child := byName[e.Type.Name]
		if child == nil || e.Unique || e.IsInverse() {
			return fmt.Errorf("edge %s: only a one-to-many edge to a resource can be embedded", e.Name)
		}
		ref := e.Ref
		if ref == nil || ref.Field() == nil {
			return fmt.Errorf("edge %s: the embedded resource must name its parent in a member", e.Name)
		}
		r.Embeds = append(r.Embeds, &embedView{
			Member:    e.Name,
			GoName:    e.StructField(),
			Child:     child,
			ChildName: child.Name,
			ChildFK:   &fieldView{Member: ref.Field().Name, GoName: ref.Field().StructField(), ColumnName: ref.Field().StorageKey()},
		})
	}
	return nil
}

// fillExpands reads the edges a read can expand: a parent's children and
// a child's parent, by name.
func fillExpands(r *resourceView, t *gen.Type, byName map[string]*resourceView) {
	for _, e := range t.Edges {
		other := byName[e.Type.Name]
		if other == nil {
			continue
		}
		switch {
		case e.IsInverse() && e.Field() != nil:
			r.Expands = append(r.Expands, &expandView{Name: other.Object, Other: other, FKGoName: e.Field().StructField()})
		case !e.IsInverse() && !e.Unique && e.Ref != nil && e.Ref.Field() != nil:
			r.Expands = append(r.Expands, &expandView{Name: other.Plural, Children: true, Other: other,
				FKColumn: e.Ref.Field().StorageKey(), FKGoName: e.Ref.Field().StructField()})
		}
	}
	sort.Slice(r.Expands, func(i, j int) bool { return r.Expands[i].Name < r.Expands[j].Name })
}

// fillUnique reads the unique members, the id first, by column, so that a
// conflict can name its member: those ent's Unique marks, then those of
// unique indexes.
func fillUnique(r *resourceView, t *gen.Type) {
	r.Unique = append(r.Unique, pair{"id", "id"})
	for _, f := range t.Fields {
		if f.Unique {
			r.Unique = append(r.Unique, pair{f.StorageKey(), f.Name})
		}
	}
	for _, idx := range t.Indexes {
		if !idx.Unique {
			continue
		}
		for _, col := range idx.Columns {
			for _, f := range t.Fields {
				if f.StorageKey() == col && col != "team_id" {
					r.Unique = append(r.Unique, pair{col, f.Name})
				}
			}
		}
	}
}

// Select is the statement reading every field the encoder writes, in
// order, for the runtime to complete with its WHERE clause.
func (r *resourceView) Select() string {
	cols := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		cols[i] = spec.Ident(f.ColumnName)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + spec.Ident(r.Table)
}

// lowerFirst lowers the leading upper-case run of a Go name: ReturnRecord →
// returnRecord, ID → id.
func lowerFirst(s string) string {
	i := 0
	for i < len(s) && 'A' <= s[i] && s[i] <= 'Z' {
		i++
	}
	switch {
	case i == 0:
		return s
	case i == 1 || i == len(s):
		return strings.ToLower(s[:i]) + s[i:]
	default:
		return strings.ToLower(s[:i-1]) + s[i-1:]
	}
}

// goName turns words into an exported Go identifier: "Update Return" →
// UpdateReturn, "packing_list_items" → PackingListItems.
func goName(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

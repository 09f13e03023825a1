package gen

import (
	"path"
	"slices"
	"strings"

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

// Cascades are the expandable edges to the resource's children: the
// records its trash, restore and purge reach too (DESIGN §17).
func (r *resourceView) Cascades() []*expandView {
	var out []*expandView
	for _, e := range r.Expands {
		if e.Children {
			out = append(out, e)
		}
	}
	return out
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

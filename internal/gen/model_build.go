package gen

import (
	"fmt"
	"sort"

	"entgo.io/ent/entc/gen"

	"records/internal/annotation"
)

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

package engine

import (
	"context"
	"strings"

	"records/internal/edge"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/wire"
)

// Field is one member of a resource, as generated code describes it: how
// to answer it, and how lists filter and order by it.
type Field[E any] struct {
	Member string
	// Column is the member's SQL column; "" for a member that is not one
	// (embedded records).
	Column   string
	Type     spec.Type
	Sortable bool
	// Search is the weight ("A" to "D") of a member full-text search looks
	// in (a list's q); "" for one it does not.
	Search string
	// Parse converts a filter's value; nil for members lists cannot filter by.
	Parse func(raw []byte) (any, error)
	// Append appends the member's JSON value.
	Append func(b []byte, e *E) []byte
	// Value is the column's value in a record (nil for null), for a
	// cursor's position; nil where Parse is.
	Value func(e *E) any
}

// Edge is a kind of related record a read can expand: a resource's
// children, or a child's parent.
type Edge[E any] struct {
	Name string // e.g. "return_line_items", "return"
	// Load reads the related records of every record in one query and
	// returns, for each, their JSON: an array of children, or the parent
	// (null when none).
	Load func(ctx context.Context, r Reader, team int, records []*E) (expansion, error)
}

// expansion is what an edge's Load answers: each record's related records
// as JSON (parts), slices of buf when buf is not nil, a pooled buffer that
// goes back to the pool once the answer is written (view.release).
type expansion struct {
	parts [][]byte
	buf   *edge.Buffer
}

// keyed is a field's JSON key, written before its value.
func keyed(member string) string { return string(wire.AppendString(nil, member)) + ":" }

// listing is what a resource's lists need, built once from its fields.
type listing struct {
	list  query.List
	value map[string]int // column member → index in Fields
	// fieldKeys and edgeKeys are the JSON keys of the fields and edges, by
	// index, for answers that choose their members (view.go).
	fieldKeys, edgeKeys []string
	// searched are the members full-text search looks in.
	searched []string
}

func (res *Resource[E]) listing() *listing {
	res.listOnce.Do(func() {
		l := &listing{list: query.List{Columns: query.Columns{}}, value: map[string]int{}}
		for i, f := range res.Fields {
			l.list.Members = append(l.list.Members, f.Member)
			l.fieldKeys = append(l.fieldKeys, keyed(f.Member))
			if f.Search != "" {
				if l.list.Search == nil {
					l.list.Search = &query.Search{Table: res.Table}
				}
				l.list.Search.Marks = append(l.list.Search.Marks, f.Search)
				l.searched = append(l.searched, f.Member)
			}
			if f.Parse == nil || f.Column == "" {
				continue
			}
			col := &query.Column{Member: f.Member, Name: f.Column, Type: f.Type, Sortable: f.Sortable, Parse: f.Parse}
			if f.Member == "id" {
				col = query.IDColumn
			}
			l.list.Columns[f.Member] = col
			l.value[f.Member] = i
		}
		for _, e := range res.Edges {
			l.list.Edges = append(l.list.Edges, e.Name)
			l.edgeKeys = append(l.edgeKeys, keyed(e.Name))
		}
		res.list = l
	})
	return res.list
}

// position is where record e, in relevance tier tier of a search, stands
// in keys.
func (res *Resource[E]) position(keys []query.Key, e *E, tier int) query.Position {
	l := res.listing()
	pos := query.Position{ID: res.ID(e)}
	for _, k := range keys[:len(keys)-1] {
		if k.Col == query.RankColumn {
			pos.Values = append(pos.Values, int64(tier))
			continue
		}
		pos.Values = append(pos.Values, res.Fields[l.value[k.Col.Member]].Value(e))
	}
	return pos
}

// selectList is the column list of the resource's Select.
func (res *Resource[E]) selectList() string {
	list, _, _ := strings.Cut(strings.TrimPrefix(res.Select, "SELECT "), " FROM ")
	return list
}

// qualifiedSelectList is selectList with each column qualified by alias.
func (res *Resource[E]) qualifiedSelectList(alias string) string {
	cols := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = alias + `."` + c + `"`
	}
	return strings.Join(cols, ", ")
}

// Package annotation holds the ent schema annotations that drive the API
// generator: which ent types are API resources, under which names, and which
// fields are hidden, read-only or typed Date rather than Date/Time.
//
// The annotations travel through ent's graph as JSON, so the generator decodes
// them with Decode rather than relying on Go values.
package annotation

import (
	"encoding/json"

	"entgo.io/ent/schema"
)

// ResourceName is the key of Resource in an ent type's annotations.
const ResourceName = "RecordsResource"

// FieldName is the key of Field in an ent field's annotations.
const FieldName = "RecordsField"

// Resource marks an ent schema as a resource of the HTTP API.
type Resource struct {
	// Type is the resource's name in the contract, e.g. "Return".
	Type string `json:"type"`
	// Plural is the collection's path segment and list member, e.g. "returns".
	Plural string `json:"plural"`
	// Object is the snake_case object name answered by deletes, e.g. "return".
	Object string `json:"object"`
}

// Name implements ent's schema.Annotation.
func (Resource) Name() string { return ResourceName }

// Field refines how one ent field appears in the API.
type Field struct {
	// Date marks a time field typed Date (YYYY-MM-DD) rather than Date/Time.
	Date bool `json:"date,omitempty"`
	// Hidden fields never appear in requests or responses.
	Hidden bool `json:"hidden,omitempty"`
	// ReadOnly fields are answered but never written by clients.
	ReadOnly bool `json:"read_only,omitempty"`
	// Sortable fields get an index (team, field, id), so that a list
	// ordered by them — and a cursor walking it — reads a range of the
	// index instead of sorting the team's records.
	Sortable bool `json:"sortable,omitempty"`
	// Stamp says when the server fills the field with the time, if the
	// client leaves it absent: CreateStamp or UpdateStamp (create too).
	Stamp string `json:"stamp,omitempty"`
	// Search marks a text field that full-text search (a list's q) looks
	// in, with its weight: "A" (weighs most), "B", "C" or "D".
	Search string `json:"search,omitempty"`
}

// SearchWeights are the weights a searchable field may carry, heaviest first.
const SearchWeights = "ABCD"

// The server-filled stamps.
const (
	CreateStamp = "create"
	UpdateStamp = "update"
)

// Name implements ent's schema.Annotation.
func (Field) Name() string { return FieldName }

// Merge implements ent's schema.Merger, so that a field can carry several
// of these (a Date that is also Sortable).
func (f Field) Merge(other schema.Annotation) schema.Annotation {
	o, ok := other.(Field)
	if !ok {
		return f
	}
	return Field{
		Date:     f.Date || o.Date,
		Hidden:   f.Hidden || o.Hidden,
		ReadOnly: f.ReadOnly || o.ReadOnly,
		Sortable: f.Sortable || o.Sortable,
		Stamp:    max(f.Stamp, o.Stamp),
		// The heavier weight wins ("A" sorts first).
		Search: heavier(f.Search, o.Search),
	}
}

func heavier(a, b string) string {
	if a == "" || b != "" && b < a {
		return b
	}
	return a
}

// Search makes a text field searchable with weight ("A" to "D").
func Search(weight string) Field { return Field{Search: weight} }

// Date marks a time field as a calendar date.
func Date() Field { return Field{Date: true} }

// Hidden keeps a field out of the API.
func Hidden() Field { return Field{Hidden: true} }

// ReadOnly makes a field answered but not writable.
func ReadOnly() Field { return Field{ReadOnly: true} }

// Sortable gives a field the index that lists ordered by it walk.
func Sortable() Field { return Field{Sortable: true} }

// Decode reads an annotation of type T back from the loosely typed value ent's
// graph holds (a map decoded from JSON). A missing annotation yields the zero T.
func Decode[T any](annotations map[string]any, key string) (T, bool, error) {
	var out T
	raw, ok := annotations[key]
	if !ok || raw == nil {
		return out, false, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return out, false, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, false, err
	}
	return out, true, nil
}

// EdgeName is the key of Edge in an ent edge's annotations.
const EdgeName = "RecordsEdge"

// Edge refines how an ent edge appears in the API.
type Edge struct {
	// Embed answers the edge's records as a member of the parent, named as
	// the edge, and lets a create give them nested in the body.
	Embed bool `json:"embed,omitempty"`
}

// Name implements ent's schema.Annotation.
func (Edge) Name() string { return EdgeName }

// Embed makes an edge's records a member of the parent.
func Embed() Edge { return Edge{Embed: true} }

// SecretName is the key of Secret in an ent field's annotations.
const SecretName = "RecordsSecret"

// Secret marks the hidden field that holds the hash of a secret the server
// makes for the record and answers once.
type Secret struct{}

// Name implements ent's schema.Annotation.
func (Secret) Name() string { return SecretName }

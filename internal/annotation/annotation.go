// Package annotation holds the ent schema annotations that drive the API
// generator: which ent types are API resources, under which names, and which
// fields are hidden, read-only or typed Date rather than Date/Time.
//
// The annotations travel through ent's graph as JSON, so the generator decodes
// them with Decode rather than relying on Go values.
package annotation

import (
	"encoding/json"
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
}

// Name implements ent's schema.Annotation.
func (Field) Name() string { return FieldName }

// Date marks a time field as a calendar date.
func Date() Field { return Field{Date: true} }

// Hidden keeps a field out of the API.
func Hidden() Field { return Field{Hidden: true} }

// ReadOnly makes a field answered but not writable.
func ReadOnly() Field { return Field{ReadOnly: true} }

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

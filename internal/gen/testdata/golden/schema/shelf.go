// Package schema is a small ent schema for the generator's golden tests:
// a shelf that embeds its books and keeps a secret, and the books.
package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
)

// Shelf holds books.
type Shelf struct{ ent.Schema }

// Annotations of the Shelf.
func (Shelf) Annotations() []schema.Annotation {
	return []schema.Annotation{annotation.Resource{Type: "Shelf", Plural: "shelves", Object: "shelf"}}
}

// Fields of the Shelf: one of each kind.
func (Shelf) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.String("label").Optional().Nillable(),
		field.Int64("capacity").Optional().Nillable(),
		field.Float("width").Optional().Nillable(),
		field.Bool("sealed").Optional().Nillable(),
		field.Time("opened").Optional().Nillable().Annotations(annotation.Date()),
		field.Time("checked_at").Optional().Nillable(),
		field.JSON("tags", map[string]string{}).Optional(),
		field.JSON("extra", json.RawMessage{}).Optional(),
		field.String("key_hash").Optional().Nillable().Sensitive().
			Annotations(annotation.Hidden(), annotation.Secret{}),
	}
}

// Edges of the Shelf.
func (Shelf) Edges() []ent.Edge {
	return []ent.Edge{edge.To("books", Book.Type).Annotations(annotation.Embed())}
}

// Book stands on a shelf.
type Book struct{ ent.Schema }

// Annotations of the Book.
func (Book) Annotations() []schema.Annotation {
	return []schema.Annotation{annotation.Resource{Type: "Book", Plural: "books", Object: "book"}}
}

// Fields of the Book.
func (Book) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.String("title").Optional().Nillable(),
		field.String("shelf_id").Optional().Nillable(),
	}
}

// Edges of the Book.
func (Book) Edges() []ent.Edge {
	return []ent.Edge{edge.From("shelf", Shelf.Type).Ref("books").Field("shelf_id").Unique()}
}

// Package schema holds the resources of the generator's golden test: a
// shelf that embeds its books and keeps a secret, and the books. The test
// puts them beside the service's own schemas (teams, tokens, events,
// webhooks and the mixins) in a scratch module, generates the whole project
// from them and builds it.
package schema

import (
	"encoding/json"
	"regexp"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
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

// Mixin of the Shelf.
func (Shelf) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Shelf: one of each kind.
func (Shelf) Fields() []ent.Field {
	return []ent.Field{
		text("label"),
		sortable(field.Int64("capacity").Optional().Nillable()),
		field.Float("width").Optional().Nillable(),
		boolean("sealed"),
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
	return []ent.Edge{
		edge.To("books", Book.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), annotation.Embed()),
	}
}

// Book stands on a shelf.
type Book struct{ ent.Schema }

// Annotations of the Book.
func (Book) Annotations() []schema.Annotation {
	return []schema.Annotation{annotation.Resource{Type: "Book", Plural: "books", Object: "book"}}
}

// Mixin of the Book.
func (Book) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "shelf_id", Edge: "shelf", Parent: Shelf.Type, Ref: "books"},
	}
}

// Fields of the Book: the options of ent's fields the API honours (DESIGN
// §14), one or more on each member after the shelf's.
func (Book) Fields() []ent.Field {
	return []ent.Field{
		text("title"),
		text("shelf_id"),
		field.String("isbn").Match(regexp.MustCompile(`^[0-9]{13}$`)).Unique().
			Comment("The book's ISBN-13: thirteen digits."),
		field.String("code").NotEmpty().MaxLen(12).Immutable().
			Comment("The library's code, given when the book is catalogued."),
		field.Enum("status").Values("draft", "published", "withdrawn").Default("draft"),
		field.Int64("pages").Positive().Max(10000).Optional().Nillable(),
		field.Float("price").Min(0).Optional().Nillable(),
		field.String("note").MinLen(2).Optional().Nillable().Sensitive().
			Comment("A note for the library's staff: written, never answered."),
	}
}

package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"

	"records/internal/annotation"
)

// Warranty is a warranty; the reference shows only its id, and the design
// adds its creation and update times.
type Warranty struct {
	ent.Schema
}

// Annotations of the Warranty.
func (Warranty) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("warranties"),
		annotation.Resource{Type: "Warranty", Plural: "warranties", Object: "warranty"},
	}
}

// Mixin of the Warranty.
func (Warranty) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Warranty.
func (Warranty) Fields() []ent.Field {
	return []ent.Field{
		sortable(created("created_at")),
		updated("updated_at"),
	}
}

// Edges of the Warranty.
func (Warranty) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("line_items", WarrantyLineItem.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

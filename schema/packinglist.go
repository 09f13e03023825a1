package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"

	"records/internal/annotation"
)

// PackingList is a packing list; its items name it in their packing_list member.
type PackingList struct {
	ent.Schema
}

// Annotations of the PackingList.
func (PackingList) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("packing_lists"),
		annotation.Resource{Type: "PackingList", Plural: "packing_lists", Object: "packing_list"},
	}
}

// Mixin of the PackingList.
func (PackingList) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the PackingList.
func (PackingList) Fields() []ent.Field {
	return []ent.Field{
		text("number"),
		date("deliveryDate"),
		text("invoice_number"),
		date("arrivalDate"),
		text("purchase_order_number"),
		text("ship_per"),
		text("tracking_number"),
	}
}

// Edges of the PackingList.
func (PackingList) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("items", PackingListItem.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

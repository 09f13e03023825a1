package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// PackingListItem is one item of a packing list.
type PackingListItem struct {
	ent.Schema
}

// Annotations of the PackingListItem.
func (PackingListItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("packing_list_items"),
		annotation.Resource{Type: "PackingListItem", Plural: "packing_list_items", Object: "packing_list_item"},
	}
}

// Mixin of the PackingListItem.
func (PackingListItem) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "packing_list", Edge: "list", Parent: PackingList.Type, Ref: "items"},
	}
}

// Fields of the PackingListItem.
func (PackingListItem) Fields() []ent.Field {
	return []ent.Field{
		text("sku"),
		text("description"),
		integer("quantity"),
		text("packing_list"),
		boolean("arrived"),
	}
}

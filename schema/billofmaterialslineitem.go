package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// BillOfMaterialsLineItem is one line of a bill of materials.
type BillOfMaterialsLineItem struct {
	ent.Schema
}

// Annotations of the BillOfMaterialsLineItem.
func (BillOfMaterialsLineItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("bill_of_materials_line_items"),
		annotation.Resource{
			Type:   "BillOfMaterialsLineItem",
			Plural: "bill_of_materials_line_items",
			Object: "bill_of_materials_line_item",
		},
	}
}

// Mixin of the BillOfMaterialsLineItem.
func (BillOfMaterialsLineItem) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the BillOfMaterialsLineItem.
func (BillOfMaterialsLineItem) Fields() []ent.Field {
	return []ent.Field{
		text("bill_of_materials_number"),
		text("line_type"),
		text("part_name"),
		text("part_number"),
		text("purchase_supply_type"),
		number("quantity"),
		sortable(text("status")),
	}
}

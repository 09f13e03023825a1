package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// WarrantyLineItem is one line of a warranty, with the extra members the
// reference's sample response carries.
type WarrantyLineItem struct {
	ent.Schema
}

// Annotations of the WarrantyLineItem.
func (WarrantyLineItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("warranty_line_items"),
		annotation.Resource{Type: "WarrantyLineItem", Plural: "warranty_line_items", Object: "warranty_line_item"},
	}
}

// Mixin of the WarrantyLineItem.
func (WarrantyLineItem) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "warranty_id", Edge: "warranty", Parent: Warranty.Type, Ref: "line_items"},
	}
}

// Hooks of the WarrantyLineItem: updated_at is a string stamp of the last write.
func (WarrantyLineItem) Hooks() []ent.Hook { return []ent.Hook{stampOnUpdate("updated_at")} }

// Fields of the WarrantyLineItem. price, amount and match have no stated type
// and so are strings; tax_refunded is stated boolean.
func (WarrantyLineItem) Fields() []ent.Field {
	return []ent.Field{
		text("sku"),
		text("name"),
		text("price"),
		text("condition"),
		text("serial_number"),
		text("amount"),
		text("warranty_id"),
		sortable(createdText("created_at")),
		updatedText("updated_at"),
		text("flat_rate_shipping"),
		boolean("tax_refunded"),
		text("image_1"),
		text("image_2"),
		text("image_3"),
		text("match"),
	}
}

package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// ReturnLineItem is one line of a return.
type ReturnLineItem struct {
	ent.Schema
}

// Annotations of the ReturnLineItem.
func (ReturnLineItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("return_line_items"),
		annotation.Resource{Type: "ReturnLineItem", Plural: "return_line_items", Object: "return_line_item"},
	}
}

// Mixin of the ReturnLineItem.
func (ReturnLineItem) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "return_id", Edge: "return_record", Parent: ReturnRecord.Type, Ref: "line_items"},
	}
}

// Fields of the ReturnLineItem. Every member is a string in the contract's
// field list, price and amount included.
func (ReturnLineItem) Fields() []ent.Field {
	return []ent.Field{
		text("amount"),
		text("condition"),
		text("flat_rate_shipping"),
		text("name"),
		text("price"),
		text("return_id"),
		text("serial_number"),
		text("sku"),
		text("tax_refunded"),
	}
}

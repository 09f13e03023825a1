package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// WorkOrderLineItem is one line of a work order.
type WorkOrderLineItem struct {
	ent.Schema
}

// Annotations of the WorkOrderLineItem.
func (WorkOrderLineItem) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("work_order_line_items"),
		annotation.Resource{Type: "WorkOrderLineItem", Plural: "work_order_line_items", Object: "work_order_line_item"},
	}
}

// Mixin of the WorkOrderLineItem.
func (WorkOrderLineItem) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "work_order_number", Edge: "work_order", Parent: WorkOrder.Type, Ref: "work_order_line_items"},
	}
}

// Fields of the WorkOrderLineItem.
func (WorkOrderLineItem) Fields() []ent.Field {
	return []ent.Field{
		sortable(text("line_status")),
		text("line_type"),
		text("part_name"),
		text("part_number"),
		numeric("total_quantity"),
		numeric("unit_quantity"),
		text("work_order_number"),
	}
}

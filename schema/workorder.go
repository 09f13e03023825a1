package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"

	"records/internal/annotation"
)

// WorkOrder is a work order; its line items name it in work_order_number.
type WorkOrder struct {
	ent.Schema
}

// Annotations of the WorkOrder.
func (WorkOrder) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("work_orders"),
		annotation.Resource{Type: "WorkOrder", Plural: "work_orders", Object: "work_order"},
	}
}

// Mixin of the WorkOrder.
func (WorkOrder) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the WorkOrder.
func (WorkOrder) Fields() []ent.Field {
	return []ent.Field{
		text("bill_of_materials_number"),
		sortable(created("created_at")),
		text("created_by"),
		date("expected_completion_date"),
		date("issue_date"),
		text("location"),
		text("manufacture_order"),
		text("memo"),
		text("number"),
		text("order_number"),
		text("part"),
		text("priority"),
		text("site"),
		sortable(text("status")),
		updated("updated_at"),
	}
}

// Edges of the WorkOrder. The edge carries the contract's member name and is
// embedded: a work order answers its line items as work_order_line_items,
// and can be created together with them.
func (WorkOrder) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("work_order_line_items", WorkOrderLineItem.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), annotation.Embed()),
	}
}

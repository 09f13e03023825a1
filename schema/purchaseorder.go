package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// PurchaseOrder is a purchase order: the eighteen members of the reference's
// sample response, all strings.
type PurchaseOrder struct {
	ent.Schema
}

// Annotations of the PurchaseOrder.
func (PurchaseOrder) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("purchase_orders"),
		annotation.Resource{Type: "PurchaseOrder", Plural: "purchase_orders", Object: "purchase_order"},
	}
}

// Mixin of the PurchaseOrder.
func (PurchaseOrder) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Hooks of the PurchaseOrder: lastupdated is a string stamp of the last write.
func (PurchaseOrder) Hooks() []ent.Hook { return []ent.Hook{stampOnUpdate("lastupdated")} }

// Fields of the PurchaseOrder.
func (PurchaseOrder) Fields() []ent.Field {
	return []ent.Field{
		sortable(createdText("createdat")),
		text("delivery_date"),
		text("description"),
		text("external_id"),
		text("financer"),
		text("fulfiller"),
		updatedText("lastupdated"),
		text("purchase_date"),
		text("purchase_order_hash"),
		text("purchase_order_name"),
		text("purchase_order_number"),
		sortable(text("purchase_order_status")),
		text("purchaser"),
		text("subtotal"),
		text("total"),
		text("vendor"),
		text("transaction_id"),
	}
}

package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"

	"records/internal/annotation"
)

// ReturnRecord is the contract's Return. ent cannot name a type Return (its
// package would be the Go keyword), so the type differs while the table,
// resource and member names follow the contract.
type ReturnRecord struct {
	ent.Schema
}

// Annotations of the ReturnRecord.
func (ReturnRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("returns"),
		annotation.Resource{Type: "Return", Plural: "returns", Object: "return"},
	}
}

// Mixin of the ReturnRecord.
func (ReturnRecord) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the ReturnRecord: all 25 members of the contract, the four that
// the reference shows only in update responses included.
func (ReturnRecord) Fields() []ent.Field {
	return []ent.Field{
		text("order_id"),
		searchable("C", text("description")),
		searchable("B", text("issue")),
		sortable(text("status")),
		text("tracking_number"),
		text("action_needed"),
		searchable("A", text("customerEmail")),
		searchable("A", text("rma")),
		searchable("A", text("serial_number")),
		text("scanned_serial_number"),
		text("helpdesk_number"),
		text("enteredBy"),
		text("order_date"),
		text("shipped_date"),
		text("requested_date"),
		text("condition"),
		text("reported_condition"),
		sortable(createdText("created_date")),
		text("amount"),
		text("flat_rate_shipping"),
		text("customer_id"),
		text("reason_category"),
		text("tax_refunded"),
		text("total_refunded"),
	}
}

// Edges of the ReturnRecord.
func (ReturnRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("line_items", ReturnLineItem.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

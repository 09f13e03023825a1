package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// Customer is a customer record. The reference lists no id for it; it gets
// one like every other resource.
type Customer struct {
	ent.Schema
}

// Annotations of the Customer.
func (Customer) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("customers"),
		annotation.Resource{Type: "Customer", Plural: "customers", Object: "customer"},
	}
}

// Mixin of the Customer.
func (Customer) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Customer.
func (Customer) Fields() []ent.Field {
	return []ent.Field{
		text("sso_id"),
		searchable("A", text("email")),
		searchable("A", text("firstName")),
		searchable("A", text("lastName")),
		text("phone"),
		text("payment_customer_id"),
		text("timestamp"),
		text("activationDate"),
	}
}

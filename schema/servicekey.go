package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// ServiceKey is a secret the service makes for itself on first use and
// every instance on the database then shares: the key that signs list
// cursors. It is not a resource of the API.
type ServiceKey struct {
	ent.Schema
}

// Annotations of the ServiceKey.
func (ServiceKey) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("service_keys")}
}

// Fields of the ServiceKey: its name is its id.
func (ServiceKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.Bytes("value").NotEmpty().Immutable(),
	}
}

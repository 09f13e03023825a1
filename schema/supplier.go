package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
)

// Supplier is shaped like the reference's user group: a name, the caller's own
// identifier (provided_id, written as user_group_id), a mapping, free-form
// properties and a secret token kept only as a hash.
type Supplier struct {
	ent.Schema
}

// Annotations of the Supplier.
func (Supplier) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("suppliers"),
		annotation.Resource{Type: "Supplier", Plural: "suppliers", Object: "supplier"},
	}
}

// Mixin of the Supplier: the owning team's number is answered as team_id.
func (Supplier) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{ExposeTeam: true}} }

// Fields of the Supplier.
func (Supplier) Fields() []ent.Field {
	return []ent.Field{
		text("name"),
		text("provided_id"),
		// Kept as PostgreSQL json, the text the client sent (compacted),
		// not jsonb: jsonb keeps numbers as numeric and writes them back
		// without exponent, 1e131071 as 131,072 digits, and reorders keys.
		field.JSON("mapping", map[string]string{}).Optional().SchemaType(jsonText),
		field.JSON("properties", json.RawMessage{}).Optional().SchemaType(jsonText),
		sortable(created("created_at")),
		updated("updated_at"),
		field.String("token_hash").Optional().Nillable().Sensitive().
			Annotations(annotation.Hidden(), annotation.Secret{}),
	}
}

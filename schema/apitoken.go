package schema

import (
	"time"

	"records/internal/spec"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// APIToken is a key a client presents in the Authorization header. Only a
// hash of its secret is stored.
type APIToken struct {
	ent.Schema
}

// Annotations of the APIToken.
func (APIToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("api_tokens")}
}

// Fields of the APIToken.
func (APIToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").DefaultFunc(spec.NewID).NotEmpty().Immutable(),
		field.String("name").NotEmpty(),
		field.String("secret_hash").NotEmpty().Unique().Sensitive().Immutable(),
		field.Enum("scope").Values("read", "write").Default("write"),
		field.Int("team_id").Immutable(),
		// role names the token's policies (DESIGN §15): admin, built in,
		// may do everything; another must be declared in the policies.
		field.String("role").Default("admin"),
		// subject is who the policies see as $auth.sub; empty: the id.
		field.String("subject").Default(""),
		field.Time("created_at").Default(time.Now).Immutable(),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the APIToken.
func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).
			Ref("tokens").
			Field("team_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the APIToken.
func (APIToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id")}
}

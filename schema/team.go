package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Team owns tokens and records. Its id is the team's number (team_id); the
// team named "default" is number 1.
type Team struct {
	ent.Schema
}

// Annotations of the Team.
func (Team) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("teams")}
}

// Fields of the Team.
func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.Int("id").Positive().Immutable(),
		field.String("name").NotEmpty().Unique(),
		field.Time("created_at").Default(time.Now).Immutable(),
	}
}

// Edges of the Team.
func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tokens", APIToken.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

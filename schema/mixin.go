package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"records/internal/annotation"
)

// RecordMixin holds what every resource shares: a string id, made as a UUIDv7
// when the client gives none, and the team that owns the record.
type RecordMixin struct {
	mixin.Schema
	// ExposeTeam answers the owning team's number as the read-only member
	// team_id instead of hiding it.
	ExposeTeam bool
}

// NewID makes a record id: a UUIDv7, so ids made by the server sort by
// creation time and never collide across teams.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Fields of the mixin.
func (m RecordMixin) Fields() []ent.Field {
	team := annotation.Hidden()
	if m.ExposeTeam {
		team = annotation.ReadOnly()
	}
	return []ent.Field{
		field.String("id").
			DefaultFunc(NewID).
			NotEmpty().
			Immutable(),
		field.Int("team_id").
			Immutable().
			Annotations(team),
	}
}

// Edges of the mixin.
func (RecordMixin) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("team", Team.Type).
			Field("team_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the mixin: every list is scoped to a team and ordered by id by default.
func (RecordMixin) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "id"),
	}
}

// ChildOf declares that the member Field of a resource holds the id of its
// parent record: an indexed foreign key, named Edge on this side and Ref on
// the parent's, whose parent's deletion deletes this record. The member
// itself is declared among the resource's fields, in contract order.
type ChildOf struct {
	mixin.Schema
	Field  string
	Edge   string
	Parent any // the parent schema's Type method, e.g. ReturnRecord.Type
	Ref    string
}

// Edges of the mixin.
func (c ChildOf) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From(c.Edge, c.Parent).Ref(c.Ref).Field(c.Field).Unique(),
	}
}

// Indexes of the mixin.
func (c ChildOf) Indexes() []ent.Index {
	return []ent.Index{index.Fields(c.Field)}
}

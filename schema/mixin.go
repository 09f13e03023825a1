package schema

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"

	"records/internal/annotation"
	"records/internal/spec"
	"records/internal/tenant"
)

// RecordMixin holds what every resource shares: a string id, made as a UUIDv7
// when the client gives none, the team that owns the record, and its version.
type RecordMixin struct {
	mixin.Schema
	// ExposeTeam answers the owning team's number as the read-only member
	// team_id instead of hiding it.
	ExposeTeam bool
}

// Fields of the mixin.
func (m RecordMixin) Fields() []ent.Field {
	team := annotation.Hidden()
	if m.ExposeTeam {
		team = annotation.ReadOnly()
	}
	return []ent.Field{
		field.String("id").
			DefaultFunc(spec.NewID).
			NotEmpty().
			Immutable(),
		field.Int("team_id").
			Immutable().
			Annotations(team),
		// version counts the record's writes: 1 on create, +1 on every
		// change. Answered as the record's ETag; If-Match compares it.
		field.Int64("version").
			Default(1).
			Annotations(annotation.ReadOnly()),
		// The trash (DESIGN §17): a trashed record has deleted_at (when,
		// in microseconds since 1970) and deleted_by (who); trash_batch
		// is shared by a record and the children its delete cascaded to,
		// which come back with it. The engine answers deleted_at and
		// deleted_by on trashed records only.
		field.Int64("deleted_at").
			Optional().
			Nillable().
			Annotations(annotation.Hidden()),
		field.String("deleted_by").
			Optional().
			Nillable().
			Annotations(annotation.Hidden()),
		field.String("trash_batch").
			Optional().
			Nillable().
			Annotations(annotation.Hidden()),
	}
}

// Live is the condition of the records not in the trash. Every index a
// list walks is partial on it, so that trashed rows cost live reads
// nothing (the engine's row scope states it in every statement).
const Live = "deleted_at IS NULL"

// live makes an index partial on Live.
func live(i *index.Builder) *index.Builder {
	return i.Annotations(entsql.IndexWhere(Live))
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

// Indexes of the mixin: every list is scoped to a team and ordered by id
// by default, the live records' (the trash's, listed with ?trashed=only,
// has an index of its own, which the generator adds); the trash by time,
// which the janitor empties, and by batch, which a restore brings back.
func (RecordMixin) Indexes() []ent.Index {
	return []ent.Index{
		live(index.Fields("team_id", "id")),
		index.Fields("deleted_at").Annotations(entsql.IndexWhere("deleted_at IS NOT NULL")),
		index.Fields("trash_batch").Annotations(entsql.IndexWhere("trash_batch IS NOT NULL")),
	}
}

// whereP is what ent's generated queries and mutations offer for adding a
// predicate without naming their types (the schema must not import them).
type whereP interface {
	WhereP(...func(*sql.Selector))
}

// Interceptors of the mixin: every query of a record type, eager loads
// included, sees only the context's team.
func (RecordMixin) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{
		ent.TraverseFunc(func(ctx context.Context, q ent.Query) error {
			team, ok := tenant.Team(ctx)
			if !ok {
				return tenant.ErrNoTeam
			}
			q.(whereP).WhereP(sql.FieldEQ("team_id", team))
			return nil
		}),
	}
}

// Hooks of the mixin: a record is created for the context's team, and
// updates and deletes reach only the context's team's records (another
// team's record is not found, exactly as a missing one).
func (RecordMixin) Hooks() []ent.Hook {
	return []ent.Hook{
		func(next ent.Mutator) ent.Mutator {
			return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
				team, ok := tenant.Team(ctx)
				if !ok {
					return nil, tenant.ErrNoTeam
				}
				if m.Op().Is(ent.OpCreate) {
					if given, ok := m.Field("team_id"); ok && given != team {
						return nil, tenant.ErrOtherTeam
					}
					if err := m.SetField("team_id", team); err != nil {
						return nil, err
					}
				} else {
					m.(whereP).WhereP(sql.FieldEQ("team_id", team))
				}
				return next.Mutate(ctx, m)
			})
		},
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

// Indexes of the mixin: the parent member alone, for the database's
// cascades and checks, and within the team with the id, for reading a
// page's children (expand, or a list filtered by parent) in order.
func (c ChildOf) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields(c.Field),
		live(index.Fields("team_id", c.Field, "id")),
	}
}

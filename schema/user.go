package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/index"

	"records/internal/annotation"
)

// User is a user record.
type User struct {
	ent.Schema
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("users"),
		annotation.Resource{Type: "User", Plural: "users", Object: "user"},
	}
}

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		boolean("active"),
		text("avatar"),
		searchable("C", text("bio")),
		date("birthday"),
		text("country"),
		searchable("A", text("email")),
		text("firstName"),
		text("lastName"),
		datetime("last_seen"),
		datetime("last_typed"),
		text("location"),
		text("organization"),
		text("phone"),
		text("regions"),
		searchable("B", text("title")),
		text("social_handle"),
		searchable("A", text("username")),
	}
}

// Indexes of the User: a username is unique within its team, among the
// records not in the trash (a trashed user's username is free again).
func (User) Indexes() []ent.Index {
	return []ent.Index{live(index.Fields("team_id", "username").Unique())}
}

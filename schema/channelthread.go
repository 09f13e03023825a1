package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// ChannelThread is a conversation thread attached to a case.
type ChannelThread struct {
	ent.Schema
}

// Annotations of the ChannelThread.
func (ChannelThread) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("channel_threads"),
		annotation.Resource{Type: "ChannelThread", Plural: "channel_threads", Object: "channel_thread"},
	}
}

// Mixin of the ChannelThread.
func (ChannelThread) Mixin() []ent.Mixin {
	return []ent.Mixin{
		RecordMixin{},
		ChildOf{Field: "case_id", Edge: "case_record", Parent: CaseRecord.Type, Ref: "threads"},
	}
}

// Fields of the ChannelThread.
func (ChannelThread) Fields() []ent.Field {
	return []ent.Field{
		text("case_id"),
		sortable(created("created_at")),
		updated("updated_at"),
	}
}

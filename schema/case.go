package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"

	"records/internal/annotation"
)

// CaseRecord is the contract's Case. ent cannot name a type Case (its package
// would be the Go keyword), so the type differs while the table, resource and
// member names follow the contract.
type CaseRecord struct {
	ent.Schema
}

// Annotations of the CaseRecord.
func (CaseRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("cases"),
		annotation.Resource{Type: "Case", Plural: "cases", Object: "case"},
	}
}

// Mixin of the CaseRecord.
func (CaseRecord) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Hooks of the CaseRecord: updatedDate is a string stamp of the last write.
func (CaseRecord) Hooks() []ent.Hook { return []ent.Hook{stampOnUpdate("updated_date")} }

// Fields of the CaseRecord.
func (CaseRecord) Fields() []ent.Field {
	return []ent.Field{
		searchable("A", text("caseName")),
		searchable("B", text("description")),
		text("caseNumber"),
		sortable(text("caseStatus")),
		text("priority"),
		text("submitter"),
		// Sortable: the index (team, resolver, id) serves the agent role's
		// filter on it (schema/policies.yaml), and orders by it.
		sortable(text("resolver")),
		sortable(createdText("createdDate")),
		updatedText("updatedDate"),
	}
}

// Edges of the CaseRecord.
func (CaseRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("threads", ChannelThread.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

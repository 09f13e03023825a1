package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyKey is the stored answer to a write sent with an
// Idempotency-Key, written in the write's own transaction, so that a retry
// is answered the same without writing again. It is not a resource of the
// API.
type IdempotencyKey struct {
	ent.Schema
}

// Annotations of the IdempotencyKey.
func (IdempotencyKey) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("idempotency_keys")}
}

// Fields of the IdempotencyKey. Its id is the team's number and the key.
func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		// fingerprint is a hash of the request's method, path and body: the
		// same key with another request is refused.
		field.String("fingerprint"),
		field.Int("status"),
		field.Bytes("body"),
		field.String("etag").Optional(),
		// image, when not null, is the created record's row as JSON (the
		// one-statement keyed create on PostgreSQL stores it, having no
		// rendered answer yet); the answer is rendered from it, as an
		// event's record is, and body is empty.
		field.Bytes("image").Optional().Nillable(),
		field.Time("created_at"),
		field.Time("expires_at"),
	}
}

// Indexes of the IdempotencyKey: expired keys are found and deleted by time.
func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}

package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Event is one committed change of a record: written by the database
// itself (a trigger on every record table, made by the generator), in the
// transaction of the change. It is not a resource of the API; the event
// log, histories, the live stream and webhooks read it.
type Event struct {
	ent.Schema
}

// Annotations of the Event.
func (Event) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("events")}
}

// Fields of the Event.
func (Event) Fields() []ent.Field {
	return []ent.Field{
		// id numbers events in the order they were written (not the order
		// their transactions commit: see txid).
		field.Int64("id").Immutable(),
		// txid is the writing transaction's id on PostgreSQL (0 on SQLite,
		// where transactions commit one at a time). The log is read in
		// (txid, id) order, only below the oldest transaction in flight.
		field.Int64("txid").Immutable(),
		field.Int("team_id").Immutable(),
		// type is "<plural>.created", "<plural>.updated" or "<plural>.deleted".
		field.String("type").Immutable(),
		field.String("record_id").Immutable(),
		// meta is the request's id and the token that wrote, as JSON members.
		field.Text("meta").Optional().Immutable(),
		// image is the record's row after the change, as JSON (none for a delete).
		field.Text("image").Optional().Immutable(),
		// occurred_at is the time of the change, in microseconds since 1970.
		field.Int64("occurred_at").Immutable(),
		// idempotency_key, on SQLite, is the key of the create sent with an
		// Idempotency-Key that made this event ("<team>:<key>"), with its
		// request's fingerprint: the one-statement keyed create keeps its
		// key here, on the row its trigger writes anyway, rather than in
		// idempotency_keys, whose row and two indexes would cost the commit
		// three more pages. The key replays the event's image until
		// --idempotency-ttl after occurred_at (package engine, keyed.go).
		// Null on PostgreSQL, whose keys are all in idempotency_keys.
		field.String("idempotency_key").Optional().Nillable().Immutable(),
		field.String("idempotency_fingerprint").Optional().Nillable().Immutable(),
	}
}

// Indexes of the Event: a team's log in cursor order (which the webhook
// dispatcher reads too, team by team) and a record's history. Each index
// costs every write of a record, so there are no more: the retention sweep
// walks the primary key, whose order is the order of writing. (On SQLite
// the generator adds the partial index of the idempotency keys kept on
// events, which has an entry for a keyed create's event only.)
func (Event) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "txid", "id"),
		index.Fields("team_id", "record_id", "id"),
	}
}

package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Webhook is an endpoint a team has events delivered to. Its signing
// secret is kept encrypted (the signature needs the secret itself, so a
// hash would not do). It is served by package webhooks, not generated.
type Webhook struct {
	ent.Schema
}

// Annotations of the Webhook.
func (Webhook) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("webhooks")}
}

// Fields of the Webhook.
func (Webhook) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.Int("team_id").Immutable(),
		field.Text("url"),
		// events are the event types delivered, as a JSON array; "*" is all.
		field.Text("events"),
		field.Text("description").Optional(),
		field.Bytes("secret").Immutable(),
		field.Int64("version").Default(1),
		field.Time("created_at").Immutable(),
		field.Time("updated_at"),
		// failing_since is the first failure since the last success.
		field.Time("failing_since").Optional().Nillable(),
		field.Time("disabled_at").Optional().Nillable(),
	}
}

// Indexes of the Webhook.
func (Webhook) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "id")}
}

// WebhookDelivery is one attempt to deliver an event to a webhook: pending
// until an instance leases it and makes the attempt, then delivered or
// failed (a failure before the last attempt schedules the next one as a
// new row).
type WebhookDelivery struct {
	ent.Schema
}

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("webhook_deliveries")}
}

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.Int("team_id").Immutable(),
		field.String("webhook_id").Immutable(),
		field.String("event_id").Immutable(),
		// body is the event as delivered: the same bytes on every attempt.
		field.Text("body").Immutable(),
		field.Int("attempt").Immutable(),
		// status is pending, delivered or failed.
		field.String("status"),
		field.Int("status_code").Optional().Nillable(),
		field.Text("error").Optional().Nillable(),
		field.Time("next_attempt_at"),
		// lease_until: an instance making the attempt holds it until then.
		field.Time("lease_until").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
		field.Time("created_at").Immutable(),
	}
}

// Indexes of the WebhookDelivery: due attempts by time, a webhook's log.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at"),
		index.Fields("team_id", "webhook_id", "id"),
		index.Fields("created_at"),
	}
}

// EventFollower is where a reader of the event log inside the service
// (the webhook dispatcher) has got to, so that it resumes there.
type EventFollower struct {
	ent.Schema
}

// Annotations of the EventFollower.
func (EventFollower) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Table("event_followers")}
}

// Fields of the EventFollower.
func (EventFollower) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().Immutable(),
		field.Int64("txid"),
		field.Int64("seq"),
	}
}

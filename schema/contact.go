package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// Contact is a contact record. The reference describes its later attributes
// without names; the design document names them.
type Contact struct {
	ent.Schema
}

// Annotations of the Contact.
func (Contact) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("contacts"),
		annotation.Resource{Type: "Contact", Plural: "contacts", Object: "contact"},
	}
}

// Mixin of the Contact.
func (Contact) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Contact.
func (Contact) Fields() []ent.Field {
	return []ent.Field{
		text("assistant"),
		text("assistant_phone"),
		text("avatar"),
		text("birthdate"),
		text("controller"),
		sortable(createdText("created_at")),
		text("created_by"),
		text("department"),
		text("description"),
		boolean("do_not_call"),
		text("email"),
		boolean("email_opt_out"),
		text("fax"),
		boolean("fax_opt_out"),
		text("first_name"),
		text("handle"),
		boolean("is_invalid"),
		text("languages"),
		text("last_name"),
		text("last_modified_by"),
		text("lead_source"),
		text("mailing_city"),
		text("mailing_country"),
		text("mailing_geocode_accuracy"),
		text("mailing_state"),
		text("mailing_street"),
		text("owner"),
		text("phone"),
		text("photo_url"),
		text("processor"),
		text("title"),
	}
}

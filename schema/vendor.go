package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"

	"records/internal/annotation"
)

// Vendor is a vendor record.
type Vendor struct {
	ent.Schema
}

// Annotations of the Vendor.
func (Vendor) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Table("vendors"),
		annotation.Resource{Type: "Vendor", Plural: "vendors", Object: "vendor"},
	}
}

// Mixin of the Vendor.
func (Vendor) Mixin() []ent.Mixin { return []ent.Mixin{RecordMixin{}} }

// Fields of the Vendor, grouped as in the reference.
func (Vendor) Fields() []ent.Field {
	return []ent.Field{
		// Identity.
		text("vendorName"),
		text("vendorNotes"),
		text("vendorSubtype"),
		text("vendorType"),
		text("vendor_owner"),
		text("vendor_source"),
		text("description"),
		text("industry"),
		text("ownership"),
		text("parentVendor"),
		text("rating"),
		text("stockTicker"),
		text("website"),
		text("yearStarted"),
		text("avatar"),
		// Size.
		text("annualRevenue"),
		text("employees"),
		text("numberOfEmployees"),
		// Contact.
		text("fax"),
		text("phone"),
		// Billing address.
		text("billingCity"),
		text("billingCountry"),
		text("billingLatitude"),
		text("billingLongitude"),
		text("billingState"),
		text("billingStreet"),
		// Shipping address.
		text("shippingCity"),
		text("shippingCountry"),
		text("shippingLatitude"),
		text("shippingLongitude"),
		text("shippingState"),
		text("shippingStreet"),
		// Audit.
		sortable(created("created_at")),
		text("last_modified_by"),
		// Flags.
		boolean("is_active"),
		boolean("is_public"),
	}
}

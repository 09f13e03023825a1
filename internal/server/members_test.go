package server_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"
)

// Member types of the contract, transcribed from the reference's field
// lists and the design's decisions — independent of the schema, so a schema
// that drifts from the contract fails here.
var contractMembers = map[string]map[string]string{
	"Return": members("string", "id", "order_id", "description", "issue", "status", "tracking_number",
		"action_needed", "customerEmail", "rma", "serial_number", "scanned_serial_number", "helpdesk_number",
		"enteredBy", "order_date", "shipped_date", "requested_date", "condition", "reported_condition",
		"created_date", "amount", "flat_rate_shipping", "customer_id", "reason_category", "tax_refunded",
		"total_refunded"),
	"ReturnLineItem": members("string", "id", "amount", "condition", "flat_rate_shipping", "name", "price",
		"return_id", "serial_number", "sku", "tax_refunded"),
	"User": with(members("string", "id", "avatar", "bio", "country", "email", "firstName", "lastName",
		"location", "organization", "phone", "regions", "title", "social_handle", "username"),
		"active", "boolean", "birthday", "date", "last_seen", "datetime", "last_typed", "datetime"),
	"Case": members("string", "id", "caseName", "description", "caseNumber", "caseStatus", "priority",
		"submitter", "resolver", "createdDate", "updatedDate"),
	"Customer": members("string", "id", "sso_id", "email", "firstName", "lastName", "phone",
		"payment_customer_id", "timestamp", "activationDate"),
	"Supplier": with(members("string", "id", "name", "provided_id"),
		"team_id", "integer", "mapping", "object", "properties", "object",
		"created_at", "datetime", "updated_at", "datetime"),
	"PackingList": with(members("string", "id", "number", "invoice_number", "purchase_order_number",
		"ship_per", "tracking_number"), "deliveryDate", "date", "arrivalDate", "date"),
	"PackingListItem": with(members("string", "id", "sku", "description", "packing_list"),
		"quantity", "integer", "arrived", "boolean"),
	"BillOfMaterialsLineItem": with(members("string", "id", "bill_of_materials_number", "line_type",
		"part_name", "part_number", "purchase_supply_type", "status"), "quantity", "number"),
	"WorkOrder": with(members("string", "id", "bill_of_materials_number", "created_by", "location",
		"manufacture_order", "memo", "number", "order_number", "part", "priority", "site", "status"),
		"created_at", "datetime", "updated_at", "datetime", "expected_completion_date", "date",
		"issue_date", "date", "work_order_line_items", "array"),
	"WorkOrderLineItem": with(members("string", "id", "line_status", "line_type", "part_name",
		"part_number", "work_order_number"), "total_quantity", "number", "unit_quantity", "number"),
	"Vendor": with(members("string", "id", "vendorName", "vendorNotes", "vendorSubtype", "vendorType",
		"vendor_owner", "vendor_source", "description", "industry", "ownership", "parentVendor", "rating",
		"stockTicker", "website", "yearStarted", "avatar", "annualRevenue", "employees", "numberOfEmployees",
		"fax", "phone", "billingCity", "billingCountry", "billingLatitude", "billingLongitude", "billingState",
		"billingStreet", "shippingCity", "shippingCountry", "shippingLatitude", "shippingLongitude",
		"shippingState", "shippingStreet", "last_modified_by"),
		"created_at", "datetime", "is_active", "boolean", "is_public", "boolean"),
	"PurchaseOrder": members("string", "id", "createdat", "delivery_date", "description", "external_id",
		"financer", "fulfiller", "lastupdated", "purchase_date", "purchase_order_hash", "purchase_order_name",
		"purchase_order_number", "purchase_order_status", "purchaser", "subtotal", "total", "vendor",
		"transaction_id"),
	"Contact": with(members("string", "id", "assistant", "assistant_phone", "avatar", "birthdate",
		"controller", "created_at", "created_by", "department", "description", "email", "fax", "first_name",
		"handle", "languages", "last_name", "last_modified_by", "lead_source", "mailing_city",
		"mailing_country", "mailing_geocode_accuracy", "mailing_state", "mailing_street", "owner", "phone",
		"photo_url", "processor", "title"),
		"do_not_call", "boolean", "email_opt_out", "boolean", "fax_opt_out", "boolean", "is_invalid", "boolean"),
	"Warranty": with(members("string", "id"), "created_at", "datetime", "updated_at", "datetime"),
	"WarrantyLineItem": with(members("string", "id", "sku", "name", "price", "condition", "serial_number",
		"amount", "warranty_id", "created_at", "updated_at", "flat_rate_shipping", "image_1", "image_2",
		"image_3", "match"), "tax_refunded", "boolean"),
	"ChannelThread": with(members("string", "id", "case_id"), "created_at", "datetime", "updated_at", "datetime"),
}

// members makes a resource's member types; every record also carries its
// version (DESIGN §11), an integer.
func members(typ string, names ...string) map[string]string {
	m := map[string]string{"version": "integer"}
	for _, n := range names {
		m[n] = typ
	}
	return m
}

func with(m map[string]string, pairs ...string) map[string]string {
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// isRecord fails unless v is a record of the resource: every member of the
// contract present (null allowed but for the id), none other, each of its
// declared JSON type.
func isRecord(t *testing.T, resource string, v any) map[string]any {
	t.Helper()
	rec, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("want a %s object, got %v", resource, v)
	}
	want := contractMembers[resource]
	if want == nil {
		t.Fatalf("no contract for %s", resource)
	}
	var missing, extra []string
	for name := range want {
		if _, ok := rec[name]; !ok {
			missing = append(missing, name)
		}
	}
	for name := range rec {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Fatalf("%s: missing members %v, unexpected members %v", resource, missing, extra)
	}
	if rec["id"] == nil {
		t.Fatalf("%s has a null id", resource)
	}
	for name, typ := range want {
		if val := rec[name]; val != nil && !hasType(val, typ) {
			t.Errorf("%s.%s: want %s, got %T %v", resource, name, typ, val, val)
		}
	}
	if items, ok := rec["work_order_line_items"].([]any); ok {
		for _, it := range items {
			isRecord(t, "WorkOrderLineItem", it)
		}
	}
	return rec
}

func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		_, err := n.Int64()
		return ok && err == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "date":
		s, ok := v.(string)
		_, err := time.Parse(time.DateOnly, s)
		return ok && err == nil
	case "datetime":
		s, ok := v.(string)
		_, err := time.Parse(time.RFC3339Nano, s)
		return ok && err == nil
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return false
}

// sampleBodies are create bodies with members of every type; sampleBody
// gives every other resource a string member with quotes and accents.
var sampleBodies = map[string]string{
	"users":                        `{"active":true,"birthday":"2000-02-29","last_seen":"2026-01-02T03:04:05.123456Z","regions":"eu","email":"u@example.com"}`,
	"suppliers":                    `{"name":"S","mapping":{"a":"b"},"properties":{"x":[1,2.5,"y"],"n":null},"created_at":"2025-12-31T23:59:59Z"}`,
	"work_order_line_items":        `{"total_quantity":"12.50","unit_quantity":3}`,
	"bill_of_materials_line_items": `{"quantity":1.25}`,
	"packing_list_items":           `{"quantity":7,"arrived":false}`,
	"packing_lists":                `{"deliveryDate":"2026-03-04"}`,
}

func sampleBody(plural string) string {
	if b, ok := sampleBodies[plural]; ok {
		return b
	}
	if m := aStringMember(plurals[plural]); m != "" {
		return fmt.Sprintf(`{%q:"value \"quoted\" ünïcode"}`, m)
	}
	return "{}"
}

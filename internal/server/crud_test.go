package server_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// plurals are the collection segments of the seventeen resources, with the
// resource each holds.
var plurals = map[string]string{
	"returns": "Return", "return_line_items": "ReturnLineItem", "cases": "Case", "customers": "Customer",
	"users": "User", "suppliers": "Supplier", "vendors": "Vendor", "contacts": "Contact",
	"packing_lists": "PackingList", "packing_list_items": "PackingListItem",
	"bill_of_materials_line_items": "BillOfMaterialsLineItem", "work_orders": "WorkOrder",
	"work_order_line_items": "WorkOrderLineItem", "purchase_orders": "PurchaseOrder",
	"warranties": "Warranty", "warranty_line_items": "WarrantyLineItem", "channel_threads": "ChannelThread",
}

// aStringMember picks a plain string member of a resource to write.
func aStringMember(resource string) string {
	var names []string
	for name, typ := range contractMembers[resource] {
		if typ == "string" && name != "id" && !strings.HasSuffix(name, "_id") && name != "packing_list" &&
			name != "work_order_number" && !strings.Contains(strings.ToLower(name), "date") &&
			!strings.Contains(name, "created") && !strings.Contains(name, "updated") && name != "lastupdated" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// Where a route of the contract has the generic route's method and path, it
// answers with its own envelope; these unwrap them.
func created(plural string, r *response) any {
	if plural == "cases" { // POST /v1/cases is Update Case
		return r.at("data", "update_cases", "returning", 0)
	}
	return r.JSON
}

func read(plural string, r *response) any {
	if plural == "users" { // GET /v1/users/:id is List Users, narrowed to the id
		return r.at("users", 0)
	}
	return r.JSON
}

func listed(plural string, r *response) []any {
	if plural == "cases" { // GET /v1/cases is List Cases' deprecated route
		return r.list("data", "case")
	}
	return r.list(plural)
}

func TestCRUDForEveryResource(t *testing.T) {
	if len(plurals) != 17 {
		t.Fatalf("17 resources, %d listed", len(plurals))
	}
	each(t, func(t *testing.T, h *harness) {
		for plural, resource := range plurals {
			base := "/v1/" + plural
			id := "crud-" + plural
			// Create, with an id and without.
			r := h.call("POST", base, `{"id":"`+id+`"}`).want(201)
			isRecord(t, resource, created(plural, r))
			made := isRecord(t, resource, created(plural, h.call("POST", base, "").want(201)))["id"].(string)
			// Read.
			isRecord(t, resource, read(plural, h.call("GET", base+"/"+id, "").want(200)))
			// Patch a member, when the resource has one to write.
			if m := aStringMember(resource); m != "" {
				r = h.call("PATCH", base+"/"+id, fmt.Sprintf(`{%q:"patched"}`, m)).want(200)
				if isRecord(t, resource, r.JSON)[m] != "patched" {
					t.Fatalf("%s: patch of %s: %s", plural, m, r.Body)
				}
				// List, filtered by it.
				l := h.call("GET", base+"?filter["+m+"]=patched", "").want(200)
				if items := listed(plural, l); len(items) != 1 || isRecord(t, resource, items[0])["id"] != id {
					t.Fatalf("%s: filtered list: %s", plural, l.Body)
				}
			}
			if items := listed(plural, h.call("GET", base, `{"order_direction":"desc"}`).want(200)); len(items) != 2 {
				t.Fatalf("%s: want 2 records, got %d", plural, len(items))
			}
			// Delete.
			h.call("DELETE", base+"/"+id, "").want(200)
			h.call("DELETE", base+"/"+made, "").want(200)
			if plural == "users" {
				if l := h.call("GET", base+"/"+id, "").want(200).list("users"); len(l) != 0 {
					t.Fatalf("users: a deleted user is listed: %v", l)
				}
				continue
			}
			h.call("GET", base+"/"+id, "").problem(404, "not_found")
		}
	})
}

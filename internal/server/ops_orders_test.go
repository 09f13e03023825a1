package server_test

import (
	"encoding/json"
	"slices"
	"testing"

	"records/internal/migrate"
)

func TestGetWorkOrder(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		body := `{"number":"WO-1","issue_date":"2026-01-02","work_order_line_items":[
			{"id":"li-b","part_name":"bolt","total_quantity":"4","unit_quantity":2},
			{"id":"li-a","part_name":"nut","total_quantity":8.5}]}`
		r := h.call("GET", "/v1/work_orders/", body).want(201)
		wo := isRecord(t, "WorkOrder", r.JSON)
		id := wo["id"].(string)
		items := r.list("work_order_line_items")
		if len(items) != 2 || r.at("work_order_line_items", 0, "id") != "li-a" || r.at("work_order_line_items", 1, "work_order_number") != id {
			t.Fatalf("line items, ordered by id, naming the work order: %s", r.Body)
		}
		if r.at("work_order_line_items", 1, "total_quantity") != json.Number("4") {
			t.Fatalf("total_quantity: %s", r.Body)
		}
		r = h.call("GET", "/v1/work_orders/"+id, "").want(200).current()
		if len(r.list("work_order_line_items")) != 2 || r.at("issue_date") != "2026-01-02" {
			t.Fatalf("read: %s", r.Body)
		}
		h.call("GET", "/v1/work_order", `{"id":"`+id+`"}`).want(200).deprecated("/v1/work_orders/{id}")
		h.call("GET", "/v1/work_orders/", `{"work_order_line_items":[{"work_order_number":"other"}]}`).
			problem(400, "invalid_request", "work_order_line_items[0].work_order_number")
	})
}

func TestUpdatePurchaseOrder(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// The sample's body: status (an alias) and condition (ignored).
		r := h.call("PUT", "/v1/purchase_orders/po-1", `{"status":"open","condition":"new","total":"99.90"}`).want(201).current()
		po := isRecord(t, "PurchaseOrder", r.JSON)
		// 18 members of the contract and the version every record carries.
		if len(po) != 19 || po["purchase_order_status"] != "open" || po["createdat"] == nil || po["lastupdated"] == nil {
			t.Fatalf("created: %v", po)
		}
		r = h.call("PUT", "/v1/purchaseorder", `{"id":"po-1","status":"closed","condition":"used"}`).want(200).deprecated("/v1/purchase_orders/{id}")
		if got := isRecord(t, "PurchaseOrder", r.JSON); got["purchase_order_status"] != "closed" || got["total"] != "99.90" {
			t.Fatalf("updated: %v", got)
		}
		h.call("PUT", "/v1/purchase_orders/po-1", `{"purchase_order_status":"held"}`).want(200)
		h.call("PUT", "/v1/purchaseorder", `{"status":"x"}`).problem(400, "invalid_request", "id")
		// A member and its alias both given: neither value is dropped in
		// silence; the second is a 400 naming it, and nothing is written.
		h.call("PUT", "/v1/purchase_orders/po-1", `{"purchase_order_status":"M","status":"A"}`).problem(400, "invalid_request", "status")
		h.call("PUT", "/v1/purchase_orders/po-1", `{"status":"A","purchase_order_status":"M"}`).problem(400, "invalid_request", "purchase_order_status")
		if got := h.call("GET", "/v1/purchase_orders/po-1", "").want(200).at("purchase_order_status"); got != "held" {
			t.Fatalf("a refused write changed the status to %v", got)
		}
	})
}

func TestDeleteWarranty(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for _, id := range []string{"w-1", "w-2"} {
			h.call("POST", "/v1/warranties", `{"id":"`+id+`"}`).want(201)
			h.call("PUT", "/v1/warranty_line_item", `{"id":"`+id+`-li","warranty_id":"`+id+`"}`).want(201)
		}
		r := h.call("DELETE", "/v1/warranty", `{"warranty_id":"w-1"}`).want(200)
		if got := r.obj(); len(got) != 4 || got["id"] != "w-1" || got["object"] != "warranty" || got["success"] != json.Number("1") || got["deleted"] != true {
			t.Fatalf("delete body: %s", r.Body)
		}
		h.call("GET", "/v1/warranty_line_items/w-1-li", "").problem(404, "not_found")
		// The sample sends id.
		h.call("DELETE", "/v1/warranty", `{"id":"w-2"}`).want(200)
		h.call("GET", "/v1/warranty_line_items/w-2-li", "").problem(404, "not_found")
		h.call("DELETE", "/v1/warranty", `{"id":"w-2"}`).problem(404, "not_found")
		h.call("DELETE", "/v1/warranty", `{"warranty_id":"w-3","id":"w-4"}`).problem(400, "invalid_request", "id")
		h.call("DELETE", "/v1/warranty", "").problem(400, "invalid_request", "warranty_id")
	})
}

func TestUpdateWarrantyLineItem(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/warranties", `{"id":"w-1"}`).want(201)
		// The sample sends _id, price as a number, and the extra members.
		r := h.call("PUT", "/v1/warranty_line_item", `{"_id":"wl-1","warranty_id":"w-1","price":10,"tax_refunded":true,"image_1":"https://img/1","match":"yes"}`).want(201)
		li := isRecord(t, "WarrantyLineItem", r.at("data", "warranty_line_items", 0))
		if li["id"] != "wl-1" || li["price"] != "10" || li["tax_refunded"] != true || li["created_at"] == nil || li["updated_at"] == nil {
			t.Fatalf("created: %v", li)
		}
		r = h.call("PUT", "/v1/warranty_line_item", `{"id":"wl-1","amount":"3"}`).want(200)
		if got := r.obj("data", "warranty_line_items", 0); got["price"] != "10" || got["amount"] != "3" {
			t.Fatalf("merge: %v", got)
		}
		h.call("PUT", "/v1/warranty_line_item", `{"id":"wl-1","_id":"wl-2"}`).problem(400, "invalid_request", "_id")
		h.call("PUT", "/v1/warranty_line_item", `{"sku":"s"}`).problem(400, "invalid_request", "id")
		h.call("PUT", "/v1/warranty_line_item", `{"id":"wl-3","warranty_id":"ghost"}`).problem(400, "invalid_request", "warranty_id")
		h.call("PUT", "/v1/warranty_line_item", `{"id":"wl-3","tax_refunded":"yes"}`).problem(400, "invalid_request", "tax_refunded")
	})
}

func TestDeleteChannelThread(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/cases", `{"id":"c-1"}`).want(201)
		h.call("POST", "/v1/cases", `{"id":"c-2"}`).want(201)
		for _, th := range []string{`{"id":"t-1","case_id":"c-1"}`, `{"id":"t-2","case_id":"c-1"}`, `{"id":"t-3","case_id":"c-2"}`} {
			isRecord(t, "ChannelThread", h.call("POST", "/v1/channel_threads", th).want(201).JSON)
		}
		r := h.call("DELETE", "/v1/channel_thread", `{"case_id":"c-1"}`).want(200)
		if got := r.obj(); got["id"] != "c-1" || got["object"] != "channel_thread" || got["deleted"] != true || got["success"] != json.Number("1") {
			t.Fatalf("delete by case: %s", r.Body)
		}
		if l := h.call("GET", "/v1/channel_threads", "").want(200).list("channel_threads"); len(l) != 1 {
			t.Fatalf("the case's threads are gone, the other's stays: %v", l)
		}
		h.call("DELETE", "/v1/channel_thread", `{"case_id":"c-1"}`).problem(404, "not_found")
		h.call("DELETE", "/v1/channel_thread", `{"id":"t-3"}`).want(200)
		h.call("DELETE", "/v1/channel_thread", "").problem(400, "invalid_request", "case_id", "id")
		h.call("DELETE", "/v1/channel_thread", `{"id":"t-9","case_id":"c-2"}`).problem(400, "invalid_request", "case_id", "id")
		h.call("DELETE", "/v1/channel_thread", `{"id":"t-9"}`).problem(404, "not_found")
	})
}

// Every route of the route table answers: the twenty operations at their
// contract routes and every alias are registered.
func TestEveryTableRouteIsRegistered(t *testing.T) {
	h := newHarness(t, migrate.SQLite, testConfig())
	want := []string{
		"PUT /v1/returns/", "PUT /v1/returns", "PUT /v1/return",
		"POST /v1/return/:id/reopen", "PUT /v1/return/:id/reopen",
		"GET /v1/return_line_item",
		"PUT /v1/return_line_items/:id", "PUT /v1/return_line_item",
		"GET /v1/users/:id", "GET /v1/users/",
		"GET /v1/cases/list", "GET /v1/cases",
		"POST /v1/cases", "PUT /v1/case",
		"GET /v1/customer/list", "GET /v1/customers/list",
		"DELETE /v1/customers/:id",
		"PUT /v1/suppliers/:id",
		"GET /v1/vendor/list", "GET /v1/vendor",
		"GET /v1/contacts/list", "GET /v1/contacts",
		"GET /v1/packing_list/:id", "GET /v1/packing_list/", "GET /v1/packing_list",
		"GET /v1/packing_lists/:id", "GET /v1/packing_lists/",
		"GET /v1/bill_of_materials_line_items/:id", "GET /v1/bill_of_materials_line_items/", "GET /v1/bill_of_materials_line_item",
		"GET /v1/work_orders/:id", "GET /v1/work_orders/", "GET /v1/work_order",
		"PUT /v1/purchase_orders/:id", "PUT /v1/purchaseorder",
		"DELETE /v1/warranty",
		"PUT /v1/warranty_line_item",
		"DELETE /v1/channel_thread",
	}
	have := map[string]bool{}
	for _, r := range h.srv.Routes() {
		have[r.Method+" "+r.Path] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("route %s is not registered", w)
		}
	}
}

// A page of work orders embeds each one's line items, its own only and by
// id, when their ids interleave across the page.
func TestWorkOrdersOnAPageEmbedTheirOwnLineItems(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/work_orders", `{"id":"wo-x","number":"X","work_order_line_items":[{"id":"i-3"},{"id":"i-1"}]}`).want(201)
		h.call("POST", "/v1/work_orders", `{"id":"wo-y","number":"Y","work_order_line_items":[{"id":"i-4"},{"id":"i-2"}]}`).want(201)
		h.call("POST", "/v1/work_orders", `{"id":"wo-z","number":"Z"}`).want(201)
		want := map[string][]string{"wo-x": {"i-1", "i-3"}, "wo-y": {"i-2", "i-4"}, "wo-z": {}}
		page := h.call("GET", "/v1/work_orders", "").want(200).list("work_orders")
		if len(page) != 3 {
			t.Fatalf("%d work orders", len(page))
		}
		for _, w := range page {
			wo := w.(map[string]any)
			var got []string
			for _, it := range wo["work_order_line_items"].([]any) {
				got = append(got, it.(map[string]any)["id"].(string))
			}
			if w := want[wo["id"].(string)]; !slices.Equal(got, w) {
				t.Errorf("%s embeds %v, want %v", wo["id"], got, w)
			}
		}
	})
}

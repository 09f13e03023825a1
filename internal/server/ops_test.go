package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// deprecated checks the headers every answer of a deprecated alias carries.
func (r *response) deprecated(successor string) *response {
	r.T.Helper()
	if got := r.Header.Get("Deprecation"); got != "@1767225600" {
		r.T.Fatalf("want Deprecation: @1767225600, got %q", got)
	}
	if got, want := r.Header.Get("Link"), "<"+successor+`>; rel="successor-version"`; got != want {
		r.T.Fatalf("want Link %s, got %q", want, got)
	}
	return r
}

// current checks that an answer is not marked deprecated.
func (r *response) current() *response {
	r.T.Helper()
	if r.Header.Get("Deprecation") != "" {
		r.T.Fatalf("a contract route must not be marked deprecated")
	}
	return r
}

func TestUpdateReturn(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// The declared body: return_id and the record wrapped in return.
		// The sample sends amount as a number; it is answered as the string it is declared.
		r := h.call("PUT", "/v1/returns/", `{"return_id":"r-1","return":{"status":"open","amount":12.50,"order_id":"o-9"}}`).want(201).current()
		rec := isRecord(t, "Return", r.at("returns", 0))
		if rec["id"] != "r-1" || rec["status"] != "open" || rec["amount"] != "12.50" || rec["created_date"] == nil {
			t.Fatalf("created return: %v", rec)
		}
		if len(r.list("returns")) != 1 {
			t.Fatalf("returns holds one record: %s", r.Body)
		}
		// The sample's flat form, at the other spelling: merge, 200.
		r = h.call("PUT", "/v1/returns", `{"id":"r-1","issue":"cracked","order_id":null}`).want(200)
		rec = isRecord(t, "Return", r.at("returns", 0))
		if rec["status"] != "open" || rec["issue"] != "cracked" || rec["order_id"] != nil || rec["amount"] != "12.50" {
			t.Fatalf("merge: absent members stay, null clears: %v", rec)
		}
		// The wrapped record may carry its id too, if it agrees.
		h.call("PUT", "/v1/returns/", `{"return_id":"r-1","return":{"id":"r-1","rma":"RMA-1"}}`).want(200)
		// The sample's path is a deprecated alias.
		r = h.call("PUT", "/v1/return", `{"id":"r-1","status":"received"}`).want(200).deprecated("/v1/returns/")
		if r.at("returns", 0, "status") != "received" {
			t.Fatalf("deprecated alias did not update: %s", r.Body)
		}
		// An id is required, and the ids given must agree.
		h.call("PUT", "/v1/returns/", `{"return":{"status":"x"}}`).problem(400, "invalid_request", "return_id")
		h.call("PUT", "/v1/returns/", `{"return_id":"a","return":{"id":"b"}}`).problem(400, "invalid_request", "return.id")
		h.call("PUT", "/v1/returns/", `{"return_id":"a","id":"b"}`).problem(400, "invalid_request", "id")
		h.call("PUT", "/v1/returns/", `{"return_id":"a","return":"x"}`).problem(400, "invalid_request", "return")
		h.call("PUT", "/v1/returns/", `{"return_id":"a","return":{},"status":"x"}`).problem(400, "invalid_request", "status")
		h.call("PUT", "/v1/returns/", `{"return_id":"a","return":{"stauts":"x"}}`).
			problem(400, "invalid_request", "return.stauts").mentions(`did you mean \"status\"`)
		h.call("PUT", "/v1/return", `{"status":"x"}`).problem(400, "invalid_request", "return_id").deprecated("/v1/returns/")
	})
}

func TestReopenReturn(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("PUT", "/v1/returns/", `{"id":"r-1","status":"closed"}`).want(201)
		r := h.call("POST", "/v1/return/r-1/reopen", "").want(200).current()
		want := map[string]any{"id": "r-1", "object": "return", "success": true, "reopened": true}
		if got := r.obj(); len(got) != len(want) || got["id"] != "r-1" || got["object"] != "return" || got["success"] != true || got["reopened"] != true {
			t.Fatalf("want %v, got %s", want, r.Body)
		}
		if got := h.call("GET", "/v1/returns/r-1", "").want(200).at("status"); got != "reopened" {
			t.Fatalf("reopen sets status to reopened, got %v", got)
		}
		h.call("POST", "/v1/return/r-1/reopen", `{"return_id":"r-1"}`).want(200)
		h.call("PUT", "/v1/return/r-1/reopen", `{"return_id":"r-1"}`).want(200).deprecated("/v1/return/{id}/reopen")
		h.call("POST", "/v1/return/r-1/reopen", `{"return_id":"r-2"}`).problem(400, "invalid_request", "return_id")
		h.call("POST", "/v1/return/r-1/reopen", `{"status":"open"}`).problem(400, "invalid_request", "status")
		h.call("POST", "/v1/return/nope/reopen", "").problem(404, "not_found")
		// If-Match conditions the write as on every write of one record:
		// another version is a 412 with nothing written, a malformed one a
		// 400, the current one writes.
		version := h.call("GET", "/v1/returns/r-1", "").want(200).at("version").(json.Number).String()
		h.call("POST", "/v1/return/r-1/reopen", "", "If-Match", `"999"`).problem(412, "precondition_failed")
		h.call("POST", "/v1/return/r-1/reopen", "", "If-Match", "garbage").problem(400, "invalid_request", "If-Match")
		h.call("POST", "/v1/return/nope/reopen", "", "If-Match", "*").problem(412, "precondition_failed")
		if v := h.call("GET", "/v1/returns/r-1", "").want(200).at("version").(json.Number).String(); v != version {
			t.Fatalf("a failed precondition wrote: version %s, was %s", v, version)
		}
		h.call("POST", "/v1/return/r-1/reopen", "", "If-Match", `"`+version+`"`).want(200)
	})
}

func TestGetReturnLineItem(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("PUT", "/v1/returns/", `{"id":"r-1"}`).want(201)
		// Without an id, it creates from the other members.
		r := h.call("GET", "/v1/return_line_item", `{"name":"lens","return_id":"r-1","price":9.99,"tax_refunded":"0.5"}`).want(201)
		rec := isRecord(t, "ReturnLineItem", r.at("data", "insert_return_line_items", "returning", 0))
		if rec["price"] != "9.99" || rec["return_id"] != "r-1" || rec["name"] != "lens" {
			t.Fatalf("created: %v", rec)
		}
		id := rec["id"].(string)
		// With an id, it reads; the body holds nothing else.
		r = h.call("GET", "/v1/return_line_item", `{"id":"`+id+`"}`).want(200)
		if got := r.at("data", "insert_return_line_items", "returning", 0, "name"); got != "lens" {
			t.Fatalf("read: %s", r.Body)
		}
		// The same parameters as a query string, for clients that cannot send a GET body.
		h.call("GET", "/v1/return_line_item?id="+id, "").want(200)
		h.call("GET", "/v1/return_line_item", `{"id":"`+id+`","name":"x"}`).problem(400, "invalid_request", "name")
		h.call("GET", "/v1/return_line_item", `{"id":"missing"}`).problem(404, "not_found")
		h.call("GET", "/v1/return_line_item", `{"return_id":"no-such-return"}`).problem(400, "invalid_request", "return_id")
	})
}

func TestUpdateReturnLineItem(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		r := h.call("PUT", "/v1/return_line_items/li-1", `{"name":"a","price":5,"amount":"2"}`).want(201).current()
		rec := isRecord(t, "ReturnLineItem", r.at("data", "insert_return_line_items", "returning", 0))
		if rec["id"] != "li-1" || rec["price"] != "5" {
			t.Fatalf("created: %v", rec)
		}
		r = h.call("PUT", "/v1/return_line_items/li-1", `{"id":"li-1","sku":"S-1"}`).want(200)
		if got := r.obj("data", "insert_return_line_items", "returning", 0); got["name"] != "a" || got["sku"] != "S-1" {
			t.Fatalf("merge: %v", got)
		}
		r = h.call("PUT", "/v1/return_line_item", `{"id":"li-1","condition":"used"}`).want(200).deprecated("/v1/return_line_items/{id}")
		if r.at("data", "insert_return_line_items", "returning", 0, "condition") != "used" {
			t.Fatalf("deprecated alias: %s", r.Body)
		}
		h.call("PUT", "/v1/return_line_item", `{"condition":"used"}`).problem(400, "invalid_request", "id")
		h.call("PUT", "/v1/return_line_items/li-1", `{"id":"li-2"}`).problem(400, "invalid_request", "id")
		h.call("PUT", "/v1/return_line_items/li-1", `{"return_id":"ghost"}`).problem(400, "invalid_request", "return_id")
	})
}

func TestListUsers(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// The sample's user id is a number; ids are strings.
		r := h.call("POST", "/v1/users", `{"id":12,"username":"ann","active":true,"birthday":"1990-04-05","last_seen":"2026-11-20T10:00:00+01:00"}`).want(201)
		u := isRecord(t, "User", r.JSON)
		if u["id"] != "12" || u["last_seen"] != "2026-11-20T09:00:00Z" || u["birthday"] != "1990-04-05" {
			t.Fatalf("created user: %v", u)
		}
		h.call("POST", "/v1/users", `{"id":"u-2","username":"bob","active":false}`).want(201)

		r = h.call("GET", "/v1/users/12", "").want(200).current()
		if users := r.list("users"); len(users) != 1 || isRecord(t, "User", users[0])["username"] != "ann" {
			t.Fatalf("narrowed to the id: %s", r.Body)
		}
		if p := r.obj("paging"); p["limit"] != json.Number("100") || p["offset"] != json.Number("0") || p["has_more"] != false {
			t.Fatalf("paging: %v", p)
		}
		if users := h.call("GET", "/v1/users/nobody", "").want(200).list("users"); len(users) != 0 {
			t.Fatalf("an unknown id is an empty list, got %v", users)
		}
		if users := h.call("GET", "/v1/users/", "").want(200).list("users"); len(users) != 2 {
			t.Fatalf("the no-id form lists everyone: %v", users)
		}
		// The reference's list body applies to the narrowed form too.
		h.call("GET", "/v1/users/", `{"limit":1,"offset":1,"order_direction":"DESC"}`).want(200)
		h.call("POST", "/v1/users", `{"username":"ann"}`).problem(409, "conflict", "username")
	})
}

func TestListCases(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/cases", `{"id":"c-1","caseName":"Broken"}`).want(201)
		h.call("POST", "/v1/cases", `{"id":"c-2","caseName":"Late"}`).want(201)
		r := h.call("GET", "/v1/cases/list", `{"limit":1,"offset":0,"order_direction":"asc"}`).want(200).current()
		cases := r.list("data", "case")
		if len(cases) != 1 || isRecord(t, "Case", cases[0])["id"] != "c-1" || r.at("paging", "has_more") != true {
			t.Fatalf("first page: %s", r.Body)
		}
		r = h.call("GET", "/v1/cases", `{"limit":"1","offset":"1","order_direction":"ASC"}`).want(200).deprecated("/v1/cases/list")
		if cases := r.list("data", "case"); len(cases) != 1 || r.at("data", "case", 0, "id") != "c-2" || r.at("paging", "has_more") != false {
			t.Fatalf("second page, sample parameters as strings: %s", r.Body)
		}
	})
}

func TestUpdateCase(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// Without an id, Update Case creates with a new one.
		r := h.call("POST", "/v1/cases", `{"caseName":"New","priority":"high"}`).want(201).current()
		c := isRecord(t, "Case", r.at("data", "update_cases", "returning", 0))
		id, err := uuid.Parse(c["id"].(string))
		if err != nil || id.Version() != 7 || c["createdDate"] == nil || c["updatedDate"] == nil {
			t.Fatalf("created case: %v (%v)", c, err)
		}
		r = h.call("POST", "/v1/cases", `{"id":"`+c["id"].(string)+`","caseStatus":"open"}`).want(200)
		if got := r.obj("data", "update_cases", "returning", 0); got["caseName"] != "New" || got["caseStatus"] != "open" {
			t.Fatalf("merge: %v", got)
		}
		h.call("PUT", "/v1/case", `{"id":"c-9","caseName":"Given"}`).want(201).deprecated("/v1/cases")
		h.call("PUT", "/v1/case", `{"id":"c-9","resolver":"me"}`).want(200).deprecated("/v1/cases")
		if got := h.call("GET", "/v1/cases/c-9", "").want(200).obj(); got["caseName"] != "Given" || got["resolver"] != "me" {
			t.Fatalf("stored: %v", got)
		}
	})
}

func TestListCustomers(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"c-1","sso_id":"sso-a","email":"a@example.com"}`).want(201)
		h.call("POST", "/v1/customers", `{"id":"c-2","sso_id":"sso-b"}`).want(201)
		r := h.call("GET", "/v1/customer/list", `{"limit":10,"offset":0,"order_direction":"desc"}`).want(200).current()
		list := r.list("customers")
		if len(list) != 2 || isRecord(t, "Customer", list[0])["id"] != "c-2" {
			t.Fatalf("descending: %s", r.Body)
		}
		// The sample's body: sso_id, a filter.
		r = h.call("GET", "/v1/customers/list", `{"sso_id":"sso-a"}`).want(200).deprecated("/v1/customer/list")
		if list := r.list("customers"); len(list) != 1 || r.at("customers", 0, "id") != "c-1" {
			t.Fatalf("sso_id filter: %s", r.Body)
		}
		if list := h.call("GET", "/v1/customer/list?sso_id=sso-b", "").want(200).list("customers"); len(list) != 1 {
			t.Fatalf("sso_id as a query parameter: %v", list)
		}
	})
}

func TestDeleteCustomer(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"c-1"}`).want(201)
		// The sample's body: user_group_id and current_token, accepted and ignored.
		r := h.call("DELETE", "/v1/customers/c-1", `{"id":"c-1","user_group_id":"g","current_token":"s3cr3t-value"}`).want(200)
		got := r.obj()
		if len(got) != 4 || got["id"] != "c-1" || got["object"] != "customer" || got["success"] != json.Number("1") || got["deleted"] != true {
			t.Fatalf("delete body: %s", r.Body)
		}
		h.call("GET", "/v1/customers/c-1", "").problem(404, "not_found")
		h.call("DELETE", "/v1/customers/c-1", "").problem(404, "not_found")
		h.call("POST", "/v1/customers", `{"id":"c-2"}`).want(201)
		h.call("DELETE", "/v1/customers/c-2", `{"id":"c-3"}`).problem(400, "invalid_request", "id")
		h.call("DELETE", "/v1/customers/c-2", `{"email":"x"}`).problem(400, "invalid_request", "email")
		if strings.Contains(h.logs.String(), "s3cr3t-value") {
			t.Fatal("the ignored current_token reached the log")
		}
	})
}

func TestUpdateSupplier(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("PUT", "/v1/suppliers/s-1", `{"user_group_id":"ug-7","provided_id":"ug-8"}`).problem(400, "invalid_request", "provided_id")
		r := h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme","user_group_id":"ug-7","mapping":{"schema-1":"source-a"},"properties":{"tier":2,"tags":["a"]}}`).want(201)
		got := r.obj()
		if got["success"] != json.Number("1") || got["new_user_group"] != true || len(got) != 3 {
			t.Fatalf("envelope: %s", r.Body)
		}
		ug := r.obj("user_group")
		token, _ := ug["token"].(string)
		if len(ug) != 4 || ug["team_id"] != json.Number("1") || token == "" || ug["name"] != "Acme" || ug["provided_id"] != "ug-7" {
			t.Fatalf("user_group: %v", ug)
		}
		// Updating answers no token: it was shown once.
		r = h.call("PUT", "/v1/suppliers/s-1", `{"name":"Acme Ltd"}`).want(200)
		if r.at("new_user_group") != false || r.at("user_group", "token") != nil || r.at("user_group", "provided_id") != "ug-7" {
			t.Fatalf("update: %s", r.Body)
		}
		// The generic routes answer the supplier's members, never the token.
		r = h.call("GET", "/v1/suppliers/s-1", "").want(200)
		s := isRecord(t, "Supplier", r.JSON)
		if s["name"] != "Acme Ltd" || strings.Contains(string(r.Body), token) || s["mapping"].(map[string]any)["schema-1"] != "source-a" {
			t.Fatalf("generic read: %s", r.Body)
		}
		var hash string
		if err := h.db.SQL.QueryRow(`SELECT token_hash FROM suppliers WHERE id = 's-1'`).Scan(&hash); err != nil || hash == "" || hash == token {
			t.Fatalf("the token must be kept only as a hash: %q (%v)", hash, err)
		}
		h.call("PUT", "/v1/suppliers/s-1", `{"mapping":{"a":1}}`).problem(400, "invalid_request", "mapping")
		h.call("PUT", "/v1/suppliers/s-1", `{"properties":[1]}`).problem(400, "invalid_request", "properties")
		h.call("PUT", "/v1/suppliers/s-1", `{"team_id":2}`).problem(400, "invalid_request", "team_id").mentions("read-only")
	})
}

func TestListVendor(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/vendors", `{"vendorName":"V","is_active":true,"is_public":"false"}`).want(201)
		r := h.call("GET", "/v1/vendor/list", `{"limit":5,"offset":0,"order_direction":"asc"}`).want(200).current()
		v := isRecord(t, "Vendor", r.at("vendors", 0))
		if v["is_public"] != false || v["created_at"] == nil {
			t.Fatalf("vendor: %v", v)
		}
		h.call("GET", "/v1/vendor", "").want(200).deprecated("/v1/vendor/list")
	})
}

func TestListContact(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/contacts", `{"first_name":"Ann","do_not_call":true,"email_opt_out":false}`).want(201)
		for _, path := range []string{"/v1/contacts/list", "/v1/contacts"} {
			r := h.call("GET", path, `{"limit":10,"offset":0,"order_direction":"ASC"}`).want(200).current()
			if c := isRecord(t, "Contact", r.at("contacts", 0)); c["first_name"] != "Ann" || c["do_not_call"] != true {
				t.Fatalf("%s: %s", path, r.Body)
			}
		}
	})
}

func TestListPackingList(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/packing_lists", `{"id":"pl-1","number":"N1","deliveryDate":"2026-03-01"}`).want(201)
		h.call("POST", "/v1/packing_lists", `{"id":"pl-2"}`).want(201)
		r := h.call("GET", "/v1/packing_list/pl-1", `{"limit":10,"offset":0,"order_direction":"asc"}`).want(200).current()
		if l := r.list("packing_lists"); len(l) != 1 || isRecord(t, "PackingList", l[0])["deliveryDate"] != "2026-03-01" {
			t.Fatalf("narrowed: %s", r.Body)
		}
		for _, path := range []string{"/v1/packing_list/", "/v1/packing_list"} {
			if l := h.call("GET", path, "").want(200).list("packing_lists"); len(l) != 2 {
				t.Fatalf("%s lists everything: %v", path, l)
			}
		}
	})
}

func TestGetPackingList(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// The no-id form without an id creates.
		r := h.call("GET", "/v1/packing_lists/", `{"number":"N-7","arrivalDate":"2026-04-02","ship_per":"DHL"}`).want(201)
		pl := isRecord(t, "PackingList", r.JSON)
		id := pl["id"].(string)
		r = h.call("GET", "/v1/packing_lists/"+id, "").want(200).current()
		if got := isRecord(t, "PackingList", r.JSON); got["number"] != "N-7" || got["arrivalDate"] != "2026-04-02" {
			t.Fatalf("read: %v", got)
		}
		h.call("GET", "/v1/packing_lists/", `{"id":"`+id+`"}`).want(200)
		h.call("GET", "/v1/packing_lists/"+id, `{"id":"`+id+`"}`).want(200)
		h.call("GET", "/v1/packing_lists/"+id, `{"id":"other"}`).problem(400, "invalid_request", "id")
		h.call("GET", "/v1/packing_lists/"+id, `{"number":"N-8"}`).problem(400, "invalid_request", "number").mentions("never writes")
		h.call("GET", "/v1/packing_lists/missing", "").problem(404, "not_found")
		h.call("GET", "/v1/packing_lists/", `{"arrivalDate":"02/04/2026"}`).problem(400, "invalid_request", "arrivalDate").mentions("YYYY-MM-DD")
	})
}

func TestGetBillOfMaterialsLineItem(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		// The sample shows quantity as a string; it is answered as a number.
		r := h.call("GET", "/v1/bill_of_materials_line_items/", `{"part_name":"bolt","quantity":"4.5"}`).want(201)
		item := isRecord(t, "BillOfMaterialsLineItem", r.JSON)
		if item["quantity"] != json.Number("4.5") {
			t.Fatalf("quantity: %v", item["quantity"])
		}
		id := item["id"].(string)
		h.call("GET", "/v1/bill_of_materials_line_items/"+id, "").want(200).current()
		r = h.call("GET", "/v1/bill_of_materials_line_item", `{"id":"`+id+`"}`).want(200).deprecated("/v1/bill_of_materials_line_items/{id}")
		if r.at("part_name") != "bolt" {
			t.Fatalf("deprecated read: %s", r.Body)
		}
		r = h.call("GET", "/v1/bill_of_materials_line_item", `{"part_name":"nut"}`).want(201).deprecated("/v1/bill_of_materials_line_items/{id}")
		isRecord(t, "BillOfMaterialsLineItem", r.JSON)
		h.call("GET", "/v1/bill_of_materials_line_items/", `{"quantity":"four"}`).problem(400, "invalid_request", "quantity")
	})
}

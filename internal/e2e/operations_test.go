package e2e

import (
	"context"
	"slices"
	"testing"

	"records/client"
)

// testOperations calls each operation of the route table through its
// method, and checks the envelope it answers decoded into its type.
func testOperations(t *testing.T, e *env) {
	c := e.c
	returnOps(t, c)
	kase := userAndCaseOps(t, c)
	customerAndSupplierOps(t, c)
	vendorAndContactOps(t, c)
	packingListOps(t, c)
	workOrderOps(t, c)
	purchaseOrderAndWarrantyOps(t, c)
	channelThreadOps(t, c, kase)
}

// returnOps checks the Return and Return Line Item operations: upserts,
// an action and a get-or-create, each in its envelope.
func returnOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	// Update Return: an upsert, its envelope {returns: [record]}.
	var resp client.Response
	ur := must(c.UpdateReturn(ctx, "op-ret", client.ReturnWrite{Status: client.Set("open"), OrderID: client.Set("o-1")}, client.Capture(&resp)))
	if ret := ur.Record(); ret == nil || ret.ID != "op-ret" || deref(ret.Status) != "open" || ret.Version != 1 || !resp.Created() {
		t.Fatalf("Update Return (create): %+v, status %d", ur, resp.Status)
	}
	ur = must(c.UpdateReturn(ctx, "op-ret", client.ReturnWrite{Status: client.Set("received"), OrderID: client.Null[string]()}, client.Capture(&resp)))
	if ret := ur.Record(); deref(ret.Status) != "received" || ret.OrderID != nil || ret.Version != 2 || resp.Created() {
		t.Fatalf("Update Return (update): %+v, status %d", ret, resp.Status)
	}

	// Reopen Return: an action; its envelope says success: true.
	rr := must(c.ReopenReturn(ctx, "op-ret"))
	if rr.ID != "op-ret" || rr.Object != "return" || !rr.Success || !rr.Reopened {
		t.Fatalf("Reopen Return: %+v", rr)
	}
	if got := must(c.Returns.Get(ctx, "op-ret", nil)); deref(got.Status) != "reopened" {
		t.Fatalf("after Reopen Return the status is %v", deref(got.Status))
	}

	// Get Return Line Item: a get-or-create under {data: {insert_return_line_items: {returning: [record]}}}.
	gl := must(c.GetReturnLineItemOrCreate(ctx, client.ReturnLineItemWrite{Sku: client.Set("sku-1"), ReturnID: client.Set("op-ret")}, client.Capture(&resp)))
	li := gl.Record()
	if li == nil || deref(li.Sku) != "sku-1" || deref(li.ReturnID) != "op-ret" || !resp.Created() {
		t.Fatalf("Get Return Line Item (create): %+v", gl)
	}
	gl = must(c.GetReturnLineItem(ctx, li.ID, &client.ReadParams{Fields: []string{"sku"}, Expand: []string{"return"}}))
	if got := gl.Record(); got.ID != li.ID || deref(got.Sku) != "sku-1" || got.Name != nil || got.Expand == nil || got.Expand.Return == nil || got.Expand.Return.ID != "op-ret" {
		t.Fatalf("Get Return Line Item (read with fields and expand): %+v", got)
	}
	if got := must(c.GetReturnLineItemOrCreate(ctx, client.ReturnLineItemWrite{ID: li.ID})).Record(); got.ID != li.ID {
		t.Fatalf("Get Return Line Item by id in the body: %+v", got)
	}

	// Update Return Line Item: an upsert by path.
	ul := must(c.UpdateReturnLineItem(ctx, li.ID, client.ReturnLineItemWrite{Name: client.Set("widget")}))
	if got := ul.Record(); deref(got.Name) != "widget" || deref(got.Sku) != "sku-1" || got.Version != 2 {
		t.Fatalf("Update Return Line Item: %+v", got)
	}
}

// userAndCaseOps checks List Users, and the Case operations; it returns the case it made.
func userAndCaseOps(t *testing.T, c *client.Client) string {
	ctx := context.Background()
	var resp client.Response
	// List Users: a list narrowed to the path's id, or every user.
	users := must(c.Users.CreateMany(ctx, []client.UserWrite{{ID: "op-u1", Username: client.Set("ann")}, {ID: "op-u2", Username: client.Set("bob")}}))
	one := must(c.ListUsers(ctx, users[0].ID, nil))
	if len(one.Users) != 1 || one.Users[0].ID != "op-u1" || deref(one.Users[0].Username) != "ann" {
		t.Fatalf("List Users by id: %+v", one)
	}
	ids := collect(t, c.ListUsersAll(ctx, "", &client.ListParams{Limit: 1, Filter: client.Filter{"id": client.Ops{"prefix": "op-u"}}}), func(u client.User) string { return u.ID })
	if !slices.Equal(ids, []string{"op-u1", "op-u2"}) {
		t.Fatalf("List Users, every page: %v", ids)
	}

	// Update Case creates with a new id when given none; List Cases answers {data: {case: [...]}}.
	uc := must(c.UpdateCase(ctx, "", client.CaseWrite{CaseName: client.Set("broken")}, client.Capture(&resp)))
	kase := uc.Record()
	if kase == nil || kase.ID == "" || deref(kase.CaseName) != "broken" || !resp.Created() {
		t.Fatalf("Update Case without an id: %+v", uc)
	}
	uc = must(c.UpdateCase(ctx, kase.ID, client.CaseWrite{CaseStatus: client.Set("open")}))
	if got := uc.Record(); got.ID != kase.ID || deref(got.CaseStatus) != "open" || deref(got.CaseName) != "broken" {
		t.Fatalf("Update Case with its id: %+v", got)
	}
	lc := must(c.ListCases(ctx, &client.ListParams{Filter: client.Filter{"id": kase.ID}}))
	if len(lc.Data.Case) != 1 || lc.Data.Case[0].ID != kase.ID || lc.Paging.Limit != 100 {
		t.Fatalf("List Cases: %+v", lc)
	}
	if ids := collect(t, c.ListCasesAll(ctx, &client.ListParams{Filter: client.Filter{"id": kase.ID}}), func(c client.Case) string { return c.ID }); len(ids) != 1 {
		t.Fatalf("List Cases, every page: %v", ids)
	}

	return kase.ID
}

// customerAndSupplierOps checks List and Delete Customer, and Update Supplier.
func customerAndSupplierOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	// List Customers, Delete Customer.
	cust := must(c.Customers.Create(ctx, client.CustomerWrite{ID: "op-c1", SSOID: client.Set("sso-1")}))
	lcu := must(c.ListCustomers(ctx, &client.ListParams{Filter: client.Filter{"sso_id": "sso-1"}}))
	if len(lcu.Customers) != 1 || lcu.Customers[0].ID != cust.ID {
		t.Fatalf("List Customers: %+v", lcu)
	}
	if ids := collect(t, c.ListCustomersAll(ctx, &client.ListParams{Filter: client.Filter{"sso_id": "sso-1"}}), func(c client.Customer) string { return c.ID }); len(ids) != 1 {
		t.Fatalf("List Customers, every page: %v", ids)
	}
	if d := must(c.DeleteCustomer(ctx, cust.ID)); d.ID != cust.ID || d.Object != "customer" || !d.Deleted || d.Success != 1 {
		t.Fatalf("Delete Customer: %+v", d)
	}

	// Update Supplier: its envelope holds the secret, once, when it creates.
	us := must(c.UpdateSupplier(ctx, "op-s1", client.SupplierWrite{Name: client.Set("Acme"), ProvidedID: client.Set("g-1")}))
	if us.Success != 1 || !us.NewUserGroup || deref(us.UserGroup.Token) == "" || deref(us.UserGroup.Name) != "Acme" ||
		deref(us.UserGroup.ProvidedID) != "g-1" || us.UserGroup.TeamID != 1 {
		t.Fatalf("Update Supplier (create): %+v", us)
	}
	us = must(c.UpdateSupplier(ctx, "op-s1", client.SupplierWrite{Name: client.Set("Acme Ltd")}))
	if us.NewUserGroup || us.UserGroup.Token != nil || deref(us.UserGroup.Name) != "Acme Ltd" {
		t.Fatalf("Update Supplier (update): %+v", us)
	}
}

// vendorAndContactOps checks List Vendor and List Contact.
func vendorAndContactOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	// List Vendor, List Contact.
	must(c.Vendors.Create(ctx, client.VendorWrite{ID: "op-v1", VendorName: client.Set("V")}))
	if lv := must(c.ListVendor(ctx, &client.ListParams{Filter: client.Filter{"id": "op-v1"}})); len(lv.Vendors) != 1 || deref(lv.Vendors[0].VendorName) != "V" {
		t.Fatalf("List Vendor: %+v", lv)
	}
	if ids := collect(t, c.ListVendorAll(ctx, &client.ListParams{Filter: client.Filter{"id": "op-v1"}}), func(v client.Vendor) string { return v.ID }); len(ids) != 1 {
		t.Fatalf("List Vendor, every page: %v", ids)
	}
	must(c.Contacts.Create(ctx, client.ContactWrite{ID: "op-k1", Email: client.Set("k@example.com"), DoNotCall: client.Set(true)}))
	if lk := must(c.ListContact(ctx, &client.ListParams{Filter: client.Filter{"do_not_call": true, "id": client.Ops{"prefix": "op-"}}})); len(lk.Contacts) != 1 || lk.Contacts[0].ID != "op-k1" {
		t.Fatalf("List Contact: %+v", lk)
	}
	if ids := collect(t, c.ListContactAll(ctx, &client.ListParams{Filter: client.Filter{"do_not_call": true, "id": client.Ops{"prefix": "op-"}}}), func(k client.Contact) string { return k.ID }); len(ids) != 1 {
		t.Fatalf("List Contact, every page: %v", ids)
	}
}

// packingListOps checks the Packing List operations.
func packingListOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	var resp client.Response
	// List Packing List (by id, or all), Get Packing List (or create).
	pl := must(c.GetPackingListOrCreate(ctx, client.PackingListWrite{Number: client.Set("PL-1"), DeliveryDate: client.Set(client.Date("2026-03-04"))}, client.Capture(&resp)))
	if pl.ID == "" || deref(pl.Number) != "PL-1" || deref(pl.DeliveryDate) != "2026-03-04" || !resp.Created() {
		t.Fatalf("Get Packing List (create): %+v", pl)
	}
	if got := must(c.GetPackingList(ctx, pl.ID, nil, client.Capture(&resp))); got.ID != pl.ID || resp.ETag() != `"1"` {
		t.Fatalf("Get Packing List: %+v, ETag %q", got, resp.ETag())
	}
	if lp := must(c.ListPackingList(ctx, pl.ID, nil)); len(lp.PackingLists) != 1 || lp.PackingLists[0].ID != pl.ID {
		t.Fatalf("List Packing List by id: %+v", lp)
	}
	if ids := collect(t, c.ListPackingListAll(ctx, "", nil), func(p client.PackingList) string { return p.ID }); !slices.Contains(ids, pl.ID) {
		t.Fatalf("List Packing List, every page: %v", ids)
	}
}

// workOrderOps checks the Bill of Materials and Work Order operations.
func workOrderOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	// Get Bill of Materials Line Item, Get Work Order (or create; a work order with its line items).
	bom := must(c.GetBillOfMaterialsLineItemOrCreate(ctx, client.BillOfMaterialsLineItemWrite{PartName: client.Set("bolt"), Quantity: client.Set(2.5)}))
	if got := must(c.GetBillOfMaterialsLineItem(ctx, bom.ID, nil)); deref(got.Quantity) != 2.5 || deref(got.PartName) != "bolt" {
		t.Fatalf("Get Bill of Materials Line Item: %+v", got)
	}
	wo := must(c.GetWorkOrderOrCreate(ctx, client.WorkOrderWrite{Number: client.Set("WO-1"),
		WorkOrderLineItems: []client.WorkOrderLineItemWrite{{PartName: client.Set("gear"), UnitQuantity: client.Set(3.0)}}}))
	if len(wo.WorkOrderLineItems) != 1 || deref(wo.WorkOrderLineItems[0].WorkOrderNumber) != wo.ID {
		t.Fatalf("Get Work Order (create with line items): %+v", wo)
	}
	if got := must(c.GetWorkOrder(ctx, wo.ID, &client.ReadParams{Expand: []string{"work_order_line_items"}})); got.Expand == nil || len(got.Expand.WorkOrderLineItems) != 1 {
		t.Fatalf("Get Work Order with expand: %+v", got)
	}
}

// purchaseOrderAndWarrantyOps checks Update Purchase Order, Update
// Warranty Line Item and Delete Warranty.
func purchaseOrderAndWarrantyOps(t *testing.T, c *client.Client) {
	ctx := context.Background()
	// Update Purchase Order: a plain record.
	po := must(c.UpdatePurchaseOrder(ctx, "op-po", client.PurchaseOrderWrite{PurchaseOrderStatus: client.Set("draft")}))
	if po.ID != "op-po" || deref(po.PurchaseOrderStatus) != "draft" {
		t.Fatalf("Update Purchase Order: %+v", po)
	}

	// Update Warranty Line Item: {data: {warranty_line_items: [record]}}; Delete Warranty by body id.
	w := must(c.Warranties.Create(ctx, client.WarrantyWrite{ID: "op-w"}))
	uw := must(c.UpdateWarrantyLineItem(ctx, "op-wli", client.WarrantyLineItemWrite{TaxRefunded: client.Set(true), WarrantyID: client.Set(w.ID)}))
	if got := uw.Record(); got == nil || got.ID != "op-wli" || !deref(got.TaxRefunded) || deref(got.WarrantyID) != w.ID {
		t.Fatalf("Update Warranty Line Item: %+v", uw)
	}
	if d := must(c.DeleteWarranty(ctx, w.ID)); d.ID != w.ID || d.Object != "warranty" || !d.Deleted {
		t.Fatalf("Delete Warranty: %+v", d)
	}
	_, err := c.WarrantyLineItems.Get(ctx, "op-wli", nil)
	problem(t, err, 404, client.CodeNotFound)
}

// channelThreadOps checks Delete Channel Thread, by id and by the case kase.
func channelThreadOps(t *testing.T, c *client.Client, kase string) {
	ctx := context.Background()
	// Delete Channel Thread: one thread by id, or every thread of a case.
	threads := must(c.ChannelThreads.CreateMany(ctx, []client.ChannelThreadWrite{{CaseID: client.Set(kase)}, {CaseID: client.Set(kase)}, {CaseID: client.Set(kase)}}))
	if d := must(c.DeleteChannelThread(ctx, threads[0].ID)); d.ID != threads[0].ID || d.Object != "channel_thread" {
		t.Fatalf("Delete Channel Thread: %+v", d)
	}
	if d := must(c.DeleteChannelThreadByCaseID(ctx, kase)); d.ID != kase {
		t.Fatalf("Delete Channel Thread by case: %+v", d)
	}
	left := must(c.ChannelThreads.List(ctx, &client.ListParams{Filter: client.Filter{"case_id": kase}}))
	if len(left.ChannelThreads) != 0 {
		t.Fatalf("threads left after deleting the case's: %+v", left.ChannelThreads)
	}
}

// collect runs an iterator to its end, failing on an error.
func collect[T any](t *testing.T, seq func(func(T, error) bool), key func(T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, key(v))
	}
	return out
}

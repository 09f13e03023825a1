package db_test

import (
	"context"
	"testing"
	"time"

	"records/ent"
	"records/ent/channelthread"
	"records/ent/packinglistitem"
	"records/ent/returnlineitem"
	"records/ent/warrantylineitem"
	"records/ent/workorderlineitem"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/tenant"
)

func newTeam(t *testing.T, c *ent.Client) int {
	t.Helper()
	return c.Team.Create().SetID(1).SetName("default").SaveX(context.Background()).ID
}

func TestDeletingAParentDeletesItsChildren(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		team := newTeam(t, c)
		ctx := tenant.WithTeam(context.Background(), team)

		// Each parent gets two children; deleting it leaves none behind,
		// and another parent's children stay.
		cases := []struct {
			name            string
			makeParent      func(id string)
			makeChild       func(id, parent string)
			deleteParent    func(id string)
			countChildrenOf func(parent string) int
		}{
			{
				"Return → ReturnLineItem",
				func(id string) { c.ReturnRecord.Create().SetID(id).SetTeamID(team).ExecX(ctx) },
				func(id, p string) { c.ReturnLineItem.Create().SetID(id).SetTeamID(team).SetReturnID(p).ExecX(ctx) },
				func(id string) { c.ReturnRecord.DeleteOneID(id).ExecX(ctx) },
				func(p string) int { return c.ReturnLineItem.Query().Where(returnlineitem.ReturnID(p)).CountX(ctx) },
			},
			{
				"WorkOrder → WorkOrderLineItem",
				func(id string) { c.WorkOrder.Create().SetID(id).SetTeamID(team).ExecX(ctx) },
				func(id, p string) {
					c.WorkOrderLineItem.Create().SetID(id).SetTeamID(team).SetWorkOrderNumber(p).ExecX(ctx)
				},
				func(id string) { c.WorkOrder.DeleteOneID(id).ExecX(ctx) },
				func(p string) int {
					return c.WorkOrderLineItem.Query().Where(workorderlineitem.WorkOrderNumber(p)).CountX(ctx)
				},
			},
			{
				"Warranty → WarrantyLineItem",
				func(id string) { c.Warranty.Create().SetID(id).SetTeamID(team).ExecX(ctx) },
				func(id, p string) { c.WarrantyLineItem.Create().SetID(id).SetTeamID(team).SetWarrantyID(p).ExecX(ctx) },
				func(id string) { c.Warranty.DeleteOneID(id).ExecX(ctx) },
				func(p string) int {
					return c.WarrantyLineItem.Query().Where(warrantylineitem.WarrantyID(p)).CountX(ctx)
				},
			},
			{
				"PackingList → PackingListItem",
				func(id string) { c.PackingList.Create().SetID(id).SetTeamID(team).ExecX(ctx) },
				func(id, p string) { c.PackingListItem.Create().SetID(id).SetTeamID(team).SetPackingList(p).ExecX(ctx) },
				func(id string) { c.PackingList.DeleteOneID(id).ExecX(ctx) },
				func(p string) int { return c.PackingListItem.Query().Where(packinglistitem.PackingList(p)).CountX(ctx) },
			},
			{
				"Case → ChannelThread",
				func(id string) { c.CaseRecord.Create().SetID(id).SetTeamID(team).ExecX(ctx) },
				func(id, p string) { c.ChannelThread.Create().SetID(id).SetTeamID(team).SetCaseID(p).ExecX(ctx) },
				func(id string) { c.CaseRecord.DeleteOneID(id).ExecX(ctx) },
				func(p string) int { return c.ChannelThread.Query().Where(channelthread.CaseID(p)).CountX(ctx) },
			},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				tc.makeParent("doomed")
				tc.makeParent("kept")
				tc.makeChild("doomed-1", "doomed")
				tc.makeChild("doomed-2", "doomed")
				tc.makeChild("kept-1", "kept")
				tc.deleteParent("doomed")
				if n := tc.countChildrenOf("doomed"); n != 0 {
					t.Errorf("%d children outlived their parent", n)
				}
				if n := tc.countChildrenOf("kept"); n != 1 {
					t.Errorf("the other parent has %d children, want 1", n)
				}
				tc.deleteParent("kept")
			})
		}
	})
}

func TestAChildNamingAMissingParentIsRejected(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		team := newTeam(t, c)
		ctx := tenant.WithTeam(context.Background(), team)
		attempts := map[string]error{
			"ReturnLineItem.return_id":            c.ReturnLineItem.Create().SetTeamID(team).SetReturnID("missing").Exec(ctx),
			"WorkOrderLineItem.work_order_number": c.WorkOrderLineItem.Create().SetTeamID(team).SetWorkOrderNumber("missing").Exec(ctx),
			"WarrantyLineItem.warranty_id":        c.WarrantyLineItem.Create().SetTeamID(team).SetWarrantyID("missing").Exec(ctx),
			"PackingListItem.packing_list":        c.PackingListItem.Create().SetTeamID(team).SetPackingList("missing").Exec(ctx),
			"ChannelThread.case_id":               c.ChannelThread.Create().SetTeamID(team).SetCaseID("missing").Exec(ctx),
			"Customer.team_id (no such team)":     c.Customer.Create().Exec(tenant.WithTeam(context.Background(), team+41)),
		}
		for what, err := range attempts {
			if !ent.IsConstraintError(err) {
				t.Errorf("%s naming a missing parent: want a constraint error, got %v", what, err)
			}
		}
	})
}

func TestServerFilledStamps(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		team := newTeam(t, c)
		ctx := tenant.WithTeam(context.Background(), team)
		before := time.Now().UTC().Add(-time.Second)

		cs := c.CaseRecord.Create().SetTeamID(team).SaveX(ctx)
		if cs.CreatedDate == nil || cs.UpdatedDate == nil {
			t.Fatalf("case stamps not filled on create: %v %v", cs.CreatedDate, cs.UpdatedDate)
		}
		created, err := time.Parse(time.RFC3339, *cs.CreatedDate)
		if err != nil || created.Before(before.Truncate(time.Second)) || created.Location() != time.UTC {
			t.Errorf("createdDate %q is not an RFC 3339 UTC stamp of now (%v)", *cs.CreatedDate, err)
		}

		// An update refreshes the update stamp and keeps the creation stamp.
		c.CaseRecord.UpdateOneID(cs.ID).SetUpdatedDate("old").ExecX(ctx)
		after := c.CaseRecord.UpdateOneID(cs.ID).SetCaseName("renamed").SaveX(ctx)
		if *after.UpdatedDate == "old" || *after.CreatedDate != *cs.CreatedDate {
			t.Errorf("after an update: createdDate %q (was %q), updatedDate %q", *after.CreatedDate, *cs.CreatedDate, *after.UpdatedDate)
		}
		// A client's explicit null is kept, and a client's value is stored as given.
		cleared := c.CaseRecord.UpdateOneID(cs.ID).ClearUpdatedDate().SaveX(ctx)
		if cleared.UpdatedDate != nil {
			t.Errorf("updatedDate cleared by the client was refilled: %q", *cleared.UpdatedDate)
		}
		given := c.CaseRecord.Create().SetTeamID(team).SetCreatedDate("yesterday").SaveX(ctx)
		if *given.CreatedDate != "yesterday" {
			t.Errorf("a client-given createdDate was overwritten: %q", *given.CreatedDate)
		}

		// Date/Time stamps: microsecond precision in UTC, as the databases keep them.
		wo := c.WorkOrder.Create().SetTeamID(team).SaveX(ctx)
		if wo.CreatedAt == nil || wo.UpdatedAt == nil || wo.CreatedAt.Location() != time.UTC || wo.CreatedAt.Nanosecond()%1000 != 0 {
			t.Fatalf("work order stamps: %v %v", wo.CreatedAt, wo.UpdatedAt)
		}
		read := c.WorkOrder.GetX(ctx, wo.ID)
		if !read.CreatedAt.Equal(*wo.CreatedAt) {
			t.Errorf("created_at written %s, read back %s", wo.CreatedAt, read.CreatedAt)
		}
		for name, stamp := range map[string]*string{
			"PurchaseOrder.createdat":     c.PurchaseOrder.Create().SetTeamID(team).SaveX(ctx).Createdat,
			"PurchaseOrder.lastupdated":   c.PurchaseOrder.Create().SetTeamID(team).SaveX(ctx).Lastupdated,
			"Return.created_date":         c.ReturnRecord.Create().SetTeamID(team).SaveX(ctx).CreatedDate,
			"Contact.created_at":          c.Contact.Create().SetTeamID(team).SaveX(ctx).CreatedAt,
			"WarrantyLineItem.created_at": c.WarrantyLineItem.Create().SetTeamID(team).SaveX(ctx).CreatedAt,
			"WarrantyLineItem.updated_at": c.WarrantyLineItem.Create().SetTeamID(team).SaveX(ctx).UpdatedAt,
		} {
			if stamp == nil {
				t.Errorf("%s not filled on create", name)
			}
		}
		for name, stamp := range map[string]*time.Time{
			"Vendor.created_at":        c.Vendor.Create().SetTeamID(team).SaveX(ctx).CreatedAt,
			"Warranty.created_at":      c.Warranty.Create().SetTeamID(team).SaveX(ctx).CreatedAt,
			"ChannelThread.updated_at": c.ChannelThread.Create().SetTeamID(team).SaveX(ctx).UpdatedAt,
			"Supplier.updated_at":      c.Supplier.Create().SetTeamID(team).SaveX(ctx).UpdatedAt,
		} {
			if stamp == nil {
				t.Errorf("%s not filled on create", name)
			}
		}
	})
}

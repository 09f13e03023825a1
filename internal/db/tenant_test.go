package db_test

import (
	"context"
	"errors"
	"testing"

	"records/ent"
	"records/ent/customer"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/tenant"
)

func TestRecordsAreScopedToTheContextsTeam(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		bg := context.Background()
		c.Team.Create().SetID(1).SetName("default").ExecX(bg)
		c.Team.Create().SetID(2).SetName("other").ExecX(bg)
		one, two := tenant.WithTeam(bg, 1), tenant.WithTeam(bg, 2)

		mine := c.Customer.Create().SetID("c1").SetEmail("one@example.com").SaveX(one)
		if mine.TeamID != 1 {
			t.Fatalf("created for team %d, want the context's team 1", mine.TeamID)
		}
		c.Customer.Create().SetID("c2").ExecX(two)

		if n := c.Customer.Query().CountX(one); n != 1 {
			t.Errorf("team 1 sees %d customers, want 1", n)
		}
		if _, err := c.Customer.Get(two, "c1"); !ent.IsNotFound(err) {
			t.Errorf("another team's record must be not found, got %v", err)
		}
		if err := c.Customer.UpdateOneID("c1").SetEmail("stolen").Exec(two); !ent.IsNotFound(err) {
			t.Errorf("updating another team's record must be not found, got %v", err)
		}
		if n := c.Customer.Update().Where(customer.ID("c1")).SetEmail("stolen").SaveX(two); n != 0 {
			t.Errorf("a bulk update reached %d of another team's records", n)
		}
		if err := c.Customer.DeleteOneID("c1").Exec(two); !ent.IsNotFound(err) {
			t.Errorf("deleting another team's record must be not found, got %v", err)
		}
		if n := c.Customer.Delete().ExecX(two); n != 1 {
			t.Errorf("team 2 deleting all its customers deleted %d, want its own 1", n)
		}
		if got := c.Customer.GetX(one, "c1"); *got.Email != "one@example.com" {
			t.Errorf("team 1's record changed: %v", *got.Email)
		}
		// Ids are unique across teams: reusing one is a constraint error.
		if err := c.Customer.Create().SetID("c1").Exec(two); !ent.IsConstraintError(err) {
			t.Errorf("reusing another team's id: want a constraint error, got %v", err)
		}
		// Writing for another team, or without a team, is refused.
		if err := c.Customer.Create().SetTeamID(2).Exec(one); !errors.Is(err, tenant.ErrOtherTeam) {
			t.Errorf("creating for another team: got %v", err)
		}
		if _, err := c.Customer.Query().All(bg); !errors.Is(err, tenant.ErrNoTeam) {
			t.Errorf("a query without a team must fail closed, got %v", err)
		}
		if err := c.Customer.Create().Exec(bg); !errors.Is(err, tenant.ErrNoTeam) {
			t.Errorf("a create without a team must fail closed, got %v", err)
		}
		// Eager loading is scoped too.
		c.WorkOrder.Create().SetID("w1").ExecX(one)
		c.WorkOrderLineItem.Create().SetID("l1").SetWorkOrderNumber("w1").ExecX(one)
		wo := c.WorkOrder.Query().WithWorkOrderLineItems().OnlyX(one)
		if len(wo.Edges.WorkOrderLineItems) != 1 {
			t.Errorf("eager load: %d items", len(wo.Edges.WorkOrderLineItems))
		}
	})
}

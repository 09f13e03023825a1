package e2e

import (
	"context"
	"testing"

	"records/client"
)

// testTotals searches and totals through the client: q on a list, and an
// aggregate of every resource.
func testTotals(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.c
	must(c.Returns.Create(ctx, client.ReturnWrite{ID: "q-ret", Description: client.Set("a zanzibar widget"), Status: client.Set("searched")}))
	page := must(c.Returns.List(ctx, &client.ListParams{Q: "zanzibar"}))
	if len(page.Returns) != 1 || page.Returns[0].ID != "q-ret" {
		t.Fatalf("q=zanzibar: %+v", page.Returns)
	}
	byStatus := must(c.Aggregate(ctx, "returns", &client.AggregateParams{GroupBy: []string{"status"}, Q: "zanzibar"}))
	if len(byStatus.Groups) != 1 || byStatus.Groups[0].Key["status"] != "searched" || byStatus.Groups[0].Count() != 1 || byStatus.Truncated {
		t.Fatalf("returns by status: %+v", byStatus)
	}
	for _, rt := range client.Routes {
		if rt.Call != "Aggregate" || !rt.Sends {
			continue
		}
		plural := rt.Path[len("/v1/") : len(rt.Path)-len("/aggregate")]
		all := must(c.Aggregate(ctx, plural, nil))
		if len(all.Groups) != 1 || len(all.Groups[0].Key) != 0 {
			t.Fatalf("%s: %+v", plural, all)
		}
	}
}

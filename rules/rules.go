// Package rules holds the service's business rules, written in Go by hand:
// recordsgen never writes here, so what is here survives every generate.
//
// Register runs once when the server starts. For each resource it may add
// (through the generated resources.Rules):
//
//   - Validate: a check of a write before the database. Return
//     problem.Member("caseStatus", "…") for a 400 naming a member,
//     engine.RuleFailed("…", members…) for a 422, or any error (a 422
//     saying its text).
//   - BeforeWrite: run inside the write's transaction, before the record
//     is written. It may read and write through tx (what it writes commits
//     with the change, or not at all) and set members with c.Body.X.Put.
//   - AfterCommit: run once the change is committed, apart from the
//     request, with the change's event as the event log answers it.
//
// and routes of its own (routes.Read, routes.Write), which pass the
// service's authentication, team, rate limit and scope, and answer
// problems as every route does (edge.Fail). README ("Business rules")
// walks through one rule end to end.
//
// The service's contract needs none: its answers are the contract's.
package rules

import (
	"records/internal/engine"
	"records/internal/resources"
)

// Register adds the service's business rules to r and its own routes to
// routes.
func Register(r *resources.Rules, routes *engine.Routes) {}

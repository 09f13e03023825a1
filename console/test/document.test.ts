// The catalog read from the service's own OpenAPI document
// (RECORDS_OPENAPI), and from documents edited as the features to come
// will edit it: the console must find every resource, its members' types
// and its routes, and light up search, trash, revert and /v1/me when they
// appear.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { catalog } from "../src/document.js";
import type { OpenAPIDocument } from "../src/document.js";

const path = process.env["RECORDS_OPENAPI"] ?? "../internal/resources/openapi.json";
const raw = readFileSync(path, "utf8");
const load = (): OpenAPIDocument => JSON.parse(raw) as OpenAPIDocument;

test("every resource is found by its plural, with its routes", () => {
  const c = catalog(load());
  const plurals = c.resources.map((r) => r.plural);
  for (const p of ["returns", "cases", "customers", "users", "work_orders", "warranty_line_items", "channel_threads"]) {
    assert.ok(plurals.includes(p), p);
  }
  assert.equal(c.resources.length, 17);
  for (const r of c.resources) {
    for (const call of ["list", "get", "create", "patch", "delete", "history"] as const) {
      assert.ok(r.routes[call], `${r.plural} has ${call}`);
    }
    assert.equal(r.routes.restore, undefined);
  }
  assert.ok(c.stream && c.events && c.webhooks);
});

test("routes an operation holds are found with where their answer holds the record", () => {
  const c = catalog(load());
  const cases = c.byPlural.get("cases")!;
  assert.deepEqual(cases.routes.list, { path: "/v1/cases/list", at: ["data", "case"] });
  assert.deepEqual(cases.routes.create, { path: "/v1/cases", at: ["data", "update_cases", "returning", 0] });
  const users = c.byPlural.get("users")!;
  assert.deepEqual(users.routes.get, { path: "/v1/users/:id", at: ["users", 0] });
  assert.deepEqual(users.routes.list, { path: "/v1/users", at: ["users"] });
  assert.deepEqual(c.byPlural.get("returns")!.routes.create, { path: "/v1/returns", at: [] });
});

test("members have their types, operators and order", () => {
  const c = catalog(load());
  const contacts = c.byPlural.get("contacts")!;
  const m = (name: string) => contacts.members.find((x) => x.name === name)!;
  assert.equal(m("do_not_call").kind, "boolean");
  assert.deepEqual(m("do_not_call").ops, ["eq", "ne", "in", "nin", "is_null"]);
  assert.ok(m("email").ops.includes("contains"));
  assert.equal(m("version").readOnly, true);
  assert.equal(m("id").readOnly, false);
  assert.ok(m("email").sortable);
  const supplier = c.byPlural.get("suppliers")!;
  assert.equal(supplier.members.find((x) => x.name === "team_id")!.readOnly, true);
  assert.equal(supplier.members.find((x) => x.name === "properties")!.kind, "object");
  const returns = c.byPlural.get("returns")!;
  assert.deepEqual(returns.edges, [{ name: "return_line_items", many: true, schema: "ReturnLineItem" }]);
  assert.deepEqual(c.byPlural.get("return_line_items")!.edges, [{ name: "return", many: false, schema: "Return" }]);
  const wo = c.byPlural.get("work_orders")!;
  assert.equal(wo.members.find((x) => x.name === "created_at")!.kind, "date-time");
  assert.equal(wo.members.find((x) => x.name === "issue_date")!.kind, "date");
  assert.ok(wo.members.find((x) => x.name === "issue_date")!.ops.includes("gte"));
  const bom = c.byPlural.get("bill_of_materials_line_items")!;
  assert.equal(bom.members.find((x) => x.name === "quantity")!.kind, "number");
});

test("a resource added to the document appears with no change", () => {
  const doc = load();
  const schemas = doc.components!.schemas!;
  schemas["Gadget"] = { type: "object", properties: { id: { $ref: "#/components/schemas/Id" }, version: { type: "integer", readOnly: true }, size: { type: ["integer", "null"] } } };
  schemas["GadgetWrite"] = { type: "object", properties: { size: { type: ["integer", "null"] } } };
  const one = { content: { "application/json": { schema: { $ref: "#/components/schemas/Gadget" } } } };
  const page = { content: { "application/json": { schema: { type: "object", properties: { gadgets: { type: "array", items: { $ref: "#/components/schemas/Gadget" } }, paging: { $ref: "#/components/schemas/Paging" } } } } } };
  const body = { content: { "application/json": { schema: { $ref: "#/components/schemas/GadgetWrite" } } } };
  doc.paths["/v1/gadgets"] = { get: { tags: ["Gadget"], responses: { "200": page } }, post: { tags: ["Gadget"], requestBody: body, responses: { "201": one } } };
  doc.paths["/v1/gadgets/{id}"] = { get: { responses: { "200": one } }, patch: { requestBody: body, responses: { "200": one } }, delete: { responses: { "200": { content: {} } } } };
  doc.paths["/v1/gadgets/{id}/history"] = { get: { tags: ["Gadget"], responses: { "200": { content: {} } } } };
  const g = catalog(doc).byPlural.get("gadgets");
  assert.ok(g);
  assert.deepEqual(g.routes.list, { path: "/v1/gadgets", at: ["gadgets"] });
  assert.equal(g.members.find((m) => m.name === "size")?.kind, "integer");
  assert.equal(g.members.find((m) => m.name === "size")?.writable, true);
});

test("search, trash, restore, revert, enums, required and /v1/me light up when declared", () => {
  const doc = load();
  const list = doc.paths["/v1/returns"]!["get"]!;
  list.parameters = [...(list.parameters ?? []), { name: "q", in: "query", schema: { type: "string" } }, { name: "trashed", in: "query", schema: { type: "string" } }];
  const one = { content: { "application/json": { schema: { $ref: "#/components/schemas/Return" } } } };
  doc.paths["/v1/returns/{id}/restore"] = { post: { responses: { "200": one } } };
  doc.paths["/v1/returns/{id}/revert"] = { post: { responses: { "200": one } } };
  doc.paths["/v1/me"] = { get: { responses: { "200": { content: {} } } } };
  const schemas = doc.components!.schemas!;
  schemas["Return"]!.properties!["status"] = { type: ["string", "null"], enum: ["open", "received", "closed", null] };
  schemas["ReturnMembers"]!.required = ["status"];
  const c = catalog(doc);
  const r = c.byPlural.get("returns")!;
  assert.ok(r.search && r.trash && c.me);
  assert.deepEqual(r.routes.restore, { path: "/v1/returns/:id/restore", at: [] });
  assert.deepEqual(r.routes.revert, { path: "/v1/returns/:id/revert", at: [] });
  const status = r.members.find((m) => m.name === "status")!;
  assert.deepEqual(status.values, ["open", "received", "closed"]);
  assert.equal(status.required, true);
  assert.equal(c.byPlural.get("customers")!.search, false);
});

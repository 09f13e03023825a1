// The catalog read from the service's own OpenAPI document
// (RECORDS_OPENAPI), from the generator's golden document, whose resources
// have members' rules (RECORDS_GOLDEN_OPENAPI), and from documents edited
// as the features to come will edit them, or with every component renamed
// or written in place: the console must find every resource, its members'
// types, rules and operators and its routes, whatever the components are
// called, and light up search, trash, revert and /v1/me when they appear.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { catalog } from "../src/document.js";
import type { Catalog, OpenAPIDocument, Schema } from "../src/document.js";
import { methods } from "../src/openapi.js";

const read = (path: string) => {
  const raw = readFileSync(path, "utf8");
  return (): OpenAPIDocument => JSON.parse(raw) as OpenAPIDocument;
};
const load = read(process.env["RECORDS_OPENAPI"] ?? "../internal/resources/openapi.json");
const golden = read(process.env["RECORDS_GOLDEN_OPENAPI"] ?? "../internal/gen/testdata/golden/want/internal/resources/openapi.json");

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

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
    assert.ok(r.routes.restore, `${r.plural} has restore`);
    assert.ok(r.members.some((m) => m.name === "id") && r.members.some((m) => m.name === "version"), `${r.plural}'s record has an id and a version`);
  }
  assert.equal(c.byPlural.get("returns")!.schema, "Return");
  assert.ok(c.stream && c.events && c.webhooks);
  assert.equal(c.me, true);
});

test("routes an operation holds are found with where their answer holds the record", () => {
  const c = catalog(load());
  const cases = c.byPlural.get("cases")!;
  assert.deepEqual(cases.routes.list, { path: "/v1/cases/list", at: ["data", "case"] });
  assert.deepEqual(cases.routes.create, { path: "/v1/cases", at: ["data", "update_cases", "returning", 0] });
  const users = c.byPlural.get("users")!;
  assert.deepEqual(users.routes.get, { path: "/v1/users/:id", at: ["users", 0] });
  assert.deepEqual(users.routes.list, { path: "/v1/users", at: ["users"] });
  const returns = c.byPlural.get("returns")!.routes;
  assert.deepEqual(returns.create, { path: "/v1/returns", at: [] });
  assert.deepEqual(returns.get, { path: "/v1/returns/:id", at: [] });
  assert.deepEqual(returns.patch, { path: "/v1/returns/:id", at: [] });
  assert.deepEqual(returns.list, { path: "/v1/returns", at: ["returns"] });
});

test("members have their types, operators and order", () => {
  const c = catalog(load());
  const contacts = c.byPlural.get("contacts")!;
  const m = (name: string) => contacts.members.find((x) => x.name === name)!;
  assert.equal(m("do_not_call").kind, "boolean");
  assert.deepEqual(m("do_not_call").ops, ["eq", "ne", "in", "nin", "is_null"]);
  assert.deepEqual(m("email").ops, ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "prefix", "is_null"]);
  assert.deepEqual(m("version").ops, ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"]);
  assert.equal(m("version").readOnly, true);
  assert.equal(m("version").writable, false);
  assert.equal(m("id").readOnly, false);
  assert.equal(m("id").creatable, true);
  assert.ok(m("email").sortable && m("email").writable && m("email").creatable && m("email").nullable);
  assert.equal(m("email").writeOnly, false);
  assert.equal(m("email").required, false);
  const supplier = c.byPlural.get("suppliers")!;
  assert.equal(supplier.members.find((x) => x.name === "team_id")!.readOnly, true);
  assert.equal(supplier.members.find((x) => x.name === "properties")!.kind, "object");
  const returns = c.byPlural.get("returns")!;
  assert.equal(returns.edges.length, 1);
  assert.equal(returns.edges[0]!.name, "return_line_items");
  assert.equal(returns.edges[0]!.many, true);
  assert.equal(c.resourceOf(returns.edges[0]!.record)?.plural, "return_line_items");
  const parent = c.byPlural.get("return_line_items")!.edges;
  assert.deepEqual(parent.map((e) => [e.name, e.many, c.resourceOf(e.record)?.plural]), [["return", false, "returns"]]);
  // The answer says "at most 1000": an indexed text's bound, a rule the console checks before sending.
  assert.equal(returns.members.find((x) => x.name === "status")!.rules.maxLength, 1000);
  assert.equal(returns.members.find((x) => x.name === "description")!.rules.maxLength, undefined);
  const wo = c.byPlural.get("work_orders")!;
  assert.equal(wo.members.find((x) => x.name === "created_at")!.kind, "date-time");
  assert.equal(wo.members.find((x) => x.name === "issue_date")!.kind, "date");
  assert.ok(wo.members.find((x) => x.name === "issue_date")!.ops.includes("gte"));
  const bom = c.byPlural.get("bill_of_materials_line_items")!;
  assert.equal(bom.members.find((x) => x.name === "quantity")!.kind, "number");
  for (const r of c.resources) assert.ok(r.members.every((x) => !x.writeOnly && !x.required && x.values === undefined), `${r.plural}: no rules the schema does not give`);
});

test("members' rules: enums, required, lengths, patterns, bounds, defaults and sensitive members", () => {
  const c = catalog(golden());
  assert.deepEqual(
    c.resources.map((r) => r.plural),
    ["books", "shelves"],
  );
  const books = c.byPlural.get("books")!;
  const m = (name: string) => books.members.find((x) => x.name === name)!;
  assert.deepEqual(m("status").values, ["draft", "published", "withdrawn"]);
  assert.equal(m("status").default, "draft");
  assert.equal(m("status").required, false, "a default fills it");
  assert.equal(m("status").nullable, false);
  assert.deepEqual([m("isbn").required, m("code").required, m("title").required], [true, true, false]);
  assert.deepEqual(m("isbn").rules, { patterns: ["^[0-9]{13}$"], maxLength: 1000 });
  assert.deepEqual(m("code").rules, { patterns: [], minLength: 1, maxLength: 12 });
  assert.deepEqual(m("pages").rules, { patterns: [], minimum: 1, maximum: 10000 });
  assert.equal(m("pages").kind, "integer");
  assert.equal(m("pages").nullable, true);
  assert.deepEqual(m("price").rules, { patterns: [], minimum: 0 });
  assert.match(m("isbn").description ?? "", /ISBN-13/);
  // A sensitive member: written, never answered, never filtered or ordered by.
  const note = m("note");
  assert.deepEqual([note.writeOnly, note.writable, note.creatable, note.readOnly, note.sortable], [true, true, true, false, false]);
  assert.deepEqual(note.ops, []);
  assert.deepEqual(note.rules, { patterns: [], minLength: 2 });
  assert.equal(note.kind, "text");
  assert.ok(!m("title").writeOnly && m("title").ops.includes("prefix") && m("pages").sortable);
  assert.deepEqual(books.routes.list, { path: "/v1/books", at: ["books"] });
  assert.deepEqual(books.routes.create, { path: "/v1/books", at: [] });
  assert.deepEqual(books.edges.map((e) => [e.name, e.many, c.resourceOf(e.record)?.plural]), [["shelf", false, "shelves"]]);
  const shelves = c.byPlural.get("shelves")!;
  assert.deepEqual(shelves.edges.map((e) => [e.name, e.many, c.resourceOf(e.record)?.plural]), [["books", true, "books"]]);
  const s = (name: string) => shelves.members.find((x) => x.name === name)!;
  assert.deepEqual(
    ["label", "capacity", "width", "sealed", "opened", "checked_at", "tags", "books"].map((n) => s(n).kind),
    ["text", "integer", "number", "boolean", "date", "date-time", "object", "object"],
  );
  assert.deepEqual(s("sealed").values, undefined);
  assert.ok(s("capacity").sortable && s("width").sortable && !s("tags").sortable && !s("books").sortable);
});

/** What the console reads of a catalog, without the schemas' identities or names. */
function summary(c: Catalog) {
  return c.resources.map((r) => ({
    plural: r.plural,
    routes: r.routes,
    members: r.members,
    edges: r.edges.map((e) => [e.name, e.many, c.resourceOf(e.record)?.plural]),
    features: [r.search, r.trash, r.readTrashed],
  }));
}

/** Every value of a document, and its $refs, rewritten by f. */
function rewrite(x: unknown, f: (ref: string) => string): unknown {
  if (Array.isArray(x)) return x.map((v) => rewrite(v, f));
  if (x === null || typeof x !== "object") return x;
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? f(v) : rewrite(v, f)]));
}

test("component names do not matter: renamed, or written in place", () => {
  for (const loadDoc of [load, golden]) {
    const want = summary(catalog(loadDoc()));
    // Every component renamed, its references with it, and no tags.
    const renamed = rewrite(loadDoc(), (r) => r.replace(/^(#\/components\/[^/]+\/)(.+)$/, "$1Zz$2_v2")) as OpenAPIDocument;
    for (const section of Object.values(renamed.components ?? {})) {
      for (const name of Object.keys(section ?? {})) {
        section![`Zz${name}_v2`] = section![name];
        delete section![name];
      }
    }
    for (const item of Object.values(renamed.paths)) for (const m of methods) delete item[m]?.tags;
    assert.deepEqual(summary(catalog(renamed)), want);
    // Parameters, request bodies and responses written in place of their references.
    const inline = loadDoc();
    const components = inline.components!;
    const place = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(place);
      if (x === null || typeof x !== "object") return x;
      const r = (x as { $ref?: unknown }).$ref;
      const m = typeof r === "string" ? /^#\/components\/(parameters|requestBodies|responses)\/(.+)$/.exec(r) : null;
      if (m) return place(components[m[1]!]![m[2]!]);
      return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, place(v)]));
    };
    inline.paths = place(inline.paths) as OpenAPIDocument["paths"];
    delete components["parameters"];
    delete components["responses"];
    assert.deepEqual(summary(catalog(inline)), want);
  }
});

test("a resource added to the document appears with no change", () => {
  const doc = load();
  const schemas = doc.components!["schemas"]! as Record<string, Schema>;
  schemas["Gadget"] = { type: "object", properties: { id: ref("schemas", "Id"), version: { type: "integer", readOnly: true }, size: { type: ["integer", "null"] } }, required: ["id", "version", "size"] };
  schemas["GadgetWrite"] = { type: "object", properties: { size: ref("schemas", "IntegerInput") } };
  const one = { content: { "application/json": { schema: ref("schemas", "Gadget") } } };
  const page = { content: { "application/json": { schema: { type: "object", properties: { gadgets: { type: "array", items: ref("schemas", "Gadget") }, paging: ref("schemas", "Paging") } } } } };
  const body = { content: { "application/json": { schema: ref("schemas", "GadgetWrite") } } };
  doc.paths["/v1/gadgets"] = { get: { responses: { "200": page } }, post: { requestBody: body, responses: { "201": one } } };
  doc.paths["/v1/gadgets/{id}"] = { get: { responses: { "200": one } }, patch: { requestBody: body, responses: { "200": one } }, delete: { responses: { "200": { content: {} } } } };
  doc.paths["/v1/gadgets/{id}/history"] = { get: { responses: { "200": { content: {} } } } };
  const g = catalog(doc).byPlural.get("gadgets");
  assert.ok(g);
  assert.deepEqual(g.routes.list, { path: "/v1/gadgets", at: ["gadgets"] });
  assert.deepEqual(g.routes.patch, { path: "/v1/gadgets/:id", at: [] });
  assert.equal(g.members.find((m) => m.name === "size")?.kind, "integer");
  assert.equal(g.members.find((m) => m.name === "size")?.writable, true);
  assert.equal(g.schema, "Gadget");
});

test("search, trash, restore, revert, enums, required and /v1/me light up when declared", () => {
  const doc = load();
  const components = doc.components!;
  const schemas = components["schemas"]! as Record<string, Schema>;
  components["parameters"]!["SearchTerms"] = { name: "q", in: "query", schema: { type: "string" } };
  const list = doc.paths["/v1/returns"]!.get!;
  list.parameters = [...(list.parameters ?? []), ref("parameters", "SearchTerms"), { name: "trashed", in: "query", schema: ref("schemas", "Text") }];
  components["responses"]!["OneReturn"] = { description: "The record.", content: { "application/json": { schema: ref("schemas", "Return") } } };
  doc.paths["/v1/returns/{id}/restore"] = { post: { responses: { "200": ref("responses", "OneReturn") } } };
  doc.paths["/v1/returns/{id}/revert"] = { post: { responses: { "200": { content: { "application/json": { schema: { type: "object", properties: { data: ref("schemas", "Return") } } } } } } } };
  doc.paths["/v1/me"] = { get: { responses: { "200": { content: {} } } } };
  // An enum a create must give, as the generator writes one: in the
  // answer (the record's members are written in its sparse form, which
  // the record takes by allOf), in the members written, and required by
  // the create's body.
  schemas["ReturnSparse"]!.properties!["status"] = { type: "string", enum: ["open", "received", "closed"] };
  schemas["StatusChoice"] = { type: "string", enum: ["open", "received", "closed"] };
  schemas["ReturnMembers"]!.properties!["status"] = ref("schemas", "StatusChoice");
  schemas["ReturnMembers"]!.properties!["pin"] = { ...ref("schemas", "TextInput"), writeOnly: true };
  schemas["NewReturn"] = { allOf: [ref("schemas", "ReturnWrite")], required: ["status"] };
  schemas["ReturnCreateRequest"]!.oneOf![0] = ref("schemas", "NewReturn");
  const c = catalog(doc);
  const r = c.byPlural.get("returns")!;
  assert.ok(r.search && r.trash && c.me);
  assert.deepEqual(r.routes.restore, { path: "/v1/returns/:id/restore", at: [] });
  assert.deepEqual(r.routes.revert, { path: "/v1/returns/:id/revert", at: ["data"] });
  const status = r.members.find((m) => m.name === "status")!;
  assert.deepEqual(status.values, ["open", "received", "closed"]);
  assert.equal(status.required, true);
  assert.equal(status.nullable, false);
  assert.ok(r.members.filter((m) => m.name !== "status").every((m) => !m.required));
  const pin = r.members.find((m) => m.name === "pin")!;
  assert.deepEqual([pin.writeOnly, pin.writable, pin.kind, pin.ops.length], [true, true, "text", 0]);
  assert.equal(c.byPlural.get("vendors")!.search, false); // no member of vendors is searchable
});

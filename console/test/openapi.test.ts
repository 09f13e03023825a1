// Reading a document through its references: pointers, chains, the
// keywords beside a $ref, allOf and unions, and documents that refer to
// themselves in circles or to nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { catalog } from "../src/document.js";
import { Doc } from "../src/openapi.js";
import type { OpenAPIDocument, Schema } from "../src/openapi.js";

const s = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

test("references of every kind are followed, through chains, with the keywords beside them", () => {
  const doc = new Doc({
    paths: {
      "/v1/a~b/{id}": { parameters: [{ $ref: "#/components/parameters/Id" }], get: { parameters: [{ $ref: "#/components/parameters/Q" }], responses: { "200": { $ref: "#/components/responses/Ok" } } } },
    },
    components: {
      schemas: { "A/B": { type: "string", minLength: 1 }, Alias: s("Alias2"), Alias2: { $ref: "#/components/schemas/A~1B" } },
      parameters: { Id: { name: "id", in: "path" }, Q: { $ref: "#/components/parameters/Q2" }, Q2: { name: "q", in: "query", schema: s("Alias") } },
      responses: { Ok: { content: { "application/json": { schema: s("Alias") }, "application/problem+json": { schema: {} } } } },
    },
  });
  const o = doc.operation("get", "/v1/a~b/{id}");
  assert.deepEqual(
    doc.parameters(o).map((p) => p.name),
    ["id", "q"],
  );
  assert.equal(doc.keyword(doc.parameter(o, "q")?.schema, "minLength"), 1);
  assert.equal(doc.base(doc.answer(o)), doc.raw.components!["schemas"]!["A/B"]);
  assert.equal(doc.schemaName(doc.answer(o)), "A/B");
  const beside: Schema = { ...s("Alias"), description: "mine", default: "x" };
  assert.equal(doc.keyword(beside, "description"), "mine");
  assert.equal(doc.keyword(beside, "type"), "string");
  assert.equal(doc.pointee("#/components/schemas/Nowhere"), undefined);
  assert.equal(doc.pointee("other.json#/x"), undefined);
});

test("allOf's parts all hold; oneOf and anyOf are alternatives, nested", () => {
  const doc = new Doc({
    paths: {},
    components: {
      schemas: {
        Base: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        More: { allOf: [s("Base")], properties: { b: { type: "integer" } }, required: ["b"] },
        Either: { oneOf: [s("More"), { anyOf: [{ type: "null" }, { type: "array", items: s("More") }] }] },
      },
    },
  });
  const more = s("More");
  assert.deepEqual(Object.keys(doc.properties(more)), ["b", "a"]);
  assert.deepEqual([...doc.required(more)].sort(), ["a", "b"]);
  assert.deepEqual(doc.types(more), ["object"]);
  const variants = doc.variants(s("Either"));
  assert.equal(variants.length, 3);
  assert.deepEqual(
    variants.map((v) => doc.types(v)),
    [["object"], ["null"], ["array"]],
  );
  assert.ok(doc.isArray(variants[2]));
  assert.deepEqual(doc.types({ enum: ["a", 1, null] }), ["string", "integer", "null"]);
});

test("a document that refers to itself in circles, or to nothing, is read without end", () => {
  const raw: OpenAPIDocument = {
    paths: {},
    components: {
      schemas: {
        Loop: { allOf: [s("Loop"), s("Loop2")], oneOf: [s("Loop"), s("Loop2")] },
        Loop2: { allOf: [s("Loop")], anyOf: [s("Loop2"), s("Loop")], $ref: "#/components/schemas/Loop" },
        Self: { $ref: "#/components/schemas/Self" },
      },
    },
  };
  const doc = new Doc(raw);
  const schemas = raw.components!["schemas"] as Record<string, Schema>;
  const parts = doc.nodes(s("Loop"));
  assert.ok(parts.includes(schemas["Loop"]!) && parts.includes(schemas["Loop2"]!) && parts.length < 10, `${parts.length} parts`);
  assert.deepEqual(doc.variants(s("Loop")), []);
  assert.equal(doc.base(s("Self")), undefined);
  assert.deepEqual(doc.properties(s("Nowhere")), {});
  // A resource whose answers and members go round in circles and nowhere: found, its members typed as text.
  const thing: Schema = { type: "object", properties: { id: { type: "string" }, version: { type: "integer" }, odd: s("Loop"), lost: s("Nowhere"), self: s("Self") } };
  schemas["Thing"] = thing;
  const one = { content: { "application/json": { schema: s("Thing") } } };
  raw.paths["/v1/things/{id}"] = { get: { responses: { "200": one } }, patch: { requestBody: { content: { "application/json": { schema: s("Loop") } } }, responses: { "200": one } } };
  raw.paths["/v1/things/{id}/history"] = { get: { responses: { "200": { $ref: "#/components/responses/Nowhere" } } } };
  raw.paths["/v1/things"] = { get: { responses: { "200": { content: { "application/json": { schema: { type: "object", properties: { paging: {}, things: { type: "array", items: s("Loop") } } } } } } } } };
  const r = catalog(raw).byPlural.get("things");
  assert.ok(r);
  assert.deepEqual(
    r.members.map((m) => [m.name, m.kind, m.writable]),
    [
      ["id", "text", false],
      ["version", "integer", false],
      ["odd", "text", false],
      ["lost", "text", false],
      ["self", "text", false],
    ],
  );
  assert.equal(r.routes.list, undefined);
  assert.deepEqual(r.routes.get, { path: "/v1/things/:id", at: [] });
});

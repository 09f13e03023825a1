// Filters from the builder's rows, list states in the address, values
// between the API and inputs, and the differences between versions.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Member, Resource } from "../src/document.js";
import { decodeList, encodeList, nextOrder, toFilter } from "../src/filters.js";
import { parseRoute, href } from "../src/route.js";
import { diff, fromInput, toInput, InputError } from "../src/values.js";

const member = (name: string, kind: Member["kind"]): Member => ({
  name,
  kind,
  readOnly: false,
  writable: true,
  creatable: true,
  writeOnly: false,
  required: false,
  nullable: true,
  rules: { patterns: [] },
  ops: [],
  sortable: true,
});
const res: Resource = {
  plural: "things",
  schema: "Thing",
  record: { type: "object" },
  members: [member("status", "text"), member("price", "number"), member("at", "date-time"), member("ok", "boolean")],
  edges: [],
  routes: {},
  search: false,
  trash: false,
  readTrashed: false,
};

test("the builder's rows make a filter: operators per member, repeats and-ed", () => {
  assert.equal(toFilter([], res), undefined);
  assert.deepEqual(
    toFilter(
      [
        { member: "status", op: "in", value: "open, closed" },
        { member: "price", op: "gte", value: "10" },
        { member: "price", op: "lt", value: "20" },
        { member: "at", op: "gt", value: "2026-01-02T03:04" },
        { member: "ok", op: "is_null", value: "false" },
        { member: "price", op: "gte", value: "12" },
      ],
      res,
    ),
    { status: { in: ["open", "closed"] }, price: { gte: "10", lt: "20" }, at: { gt: "2026-01-02T03:04Z" }, ok: { is_null: false }, and: [{ price: { gte: "12" } }] },
  );
});

test("a list's state survives the address", () => {
  const s = { conds: [{ member: "status", op: "eq" as const, value: "a&b=c" }], order: "-price", q: "wrong item", trashed: true, cursor: "abc" };
  assert.deepEqual(decodeList(encodeList(s)), s);
  assert.deepEqual(decodeList("filter=not-json").conds, []);
  assert.equal(nextOrder("", "price"), "price");
  assert.equal(nextOrder("price", "price"), "-price");
  assert.equal(nextOrder("-price", "price"), "");
});

test("routes round-trip through the hash", () => {
  for (const r of [
    { page: "home" as const },
    { page: "list" as const, plural: "returns", query: "order=id" },
    { page: "new" as const, plural: "returns" },
    { page: "record" as const, plural: "returns", id: "r/1 new" },
    { page: "events" as const },
    { page: "webhook" as const, id: "wh_1" },
  ]) {
    assert.deepEqual(parseRoute(href(r)), r);
  }
  assert.deepEqual(parseRoute("#/r/returns/new"), { page: "record", plural: "returns", id: "new" });
});

test("inputs read and show values of each type", () => {
  assert.equal(fromInput(member("n", "number"), "1.5"), 1.5);
  assert.throws(() => fromInput(member("n", "integer"), "1.5"), InputError);
  assert.equal(fromInput(member("t", "text"), ""), null);
  assert.equal(fromInput(member("b", "boolean"), "false"), false);
  assert.deepEqual(fromInput(member("o", "object"), '{"a":1}'), { a: 1 });
  assert.throws(() => fromInput(member("o", "object"), "{"), InputError);
  assert.equal(fromInput(member("d", "date-time"), "2026-01-02T03:04:05"), "2026-01-02T03:04:05Z");
  assert.equal(toInput(member("d", "date-time"), "2026-01-02T03:04:05.123456Z"), "2026-01-02T03:04:05");
  assert.equal(toInput(member("o", "object"), { a: 1 }), '{\n  "a": 1\n}');
});

test("a version's differences from the one before", () => {
  assert.deepEqual(diff({ id: "a", version: 1, s: "x", n: null }, { id: "a", version: 2, s: "y", n: null }), [{ member: "s", before: "x", after: "y" }]);
  assert.deepEqual(diff(undefined, { id: "a", version: 1, s: null, t: "z" }), [
    { member: "id", before: undefined, after: "a" },
    { member: "t", before: undefined, after: "z" },
  ]);
});

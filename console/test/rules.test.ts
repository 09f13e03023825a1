// Members' rules as the generator's golden document states them
// (RECORDS_GOLDEN_OPENAPI), checked before a form is sent, in the words the
// server answers with (internal/engine/constraints.go).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { catalog } from "../src/document.js";
import type { OpenAPIDocument } from "../src/document.js";
import { nullRefused, refusal, ruleHints } from "../src/rules.js";
import { fromInput } from "../src/values.js";

const path = process.env["RECORDS_GOLDEN_OPENAPI"] ?? "../internal/gen/testdata/golden/want/internal/resources/openapi.json";
const books = catalog(JSON.parse(readFileSync(path, "utf8")) as OpenAPIDocument).byPlural.get("books")!;
const m = (name: string) => books.members.find((x) => x.name === name)!;
/** What the form would say of a member's typed text. */
const say = (name: string, text: string) => refusal(m(name), fromInput(m(name), text));

test("values the rules refuse are said as the server says them", () => {
  assert.equal(say("isbn", "978316148410"), "must match the pattern ^[0-9]{13}$");
  assert.equal(say("isbn", "9783161484100"), undefined);
  assert.equal(say("code", "ABCDEFGHIJKLM"), "must be at most 12 characters long (it has 13)");
  assert.equal(say("code", "ÉÉÉÉÉÉÉÉÉÉÉÉ"), undefined, "lengths count characters, not bytes");
  assert.equal(say("code", ""), nullRefused, "an emptied input is null, which a required member refuses");
  assert.equal(say("note", "x"), "must be at least 2 characters long (it has 1)");
  assert.equal(say("note", "😀😀"), undefined, "code points, as JSON Schema counts");
  assert.equal(say("note", ""), undefined, "null is fine where the member takes it");
  assert.equal(say("status", "lost"), 'must be one of "draft", "published", "withdrawn"');
  assert.equal(say("status", "published"), undefined);
  assert.equal(say("pages", "0"), "must be at least 1");
  assert.equal(say("pages", "10001"), "must be at most 10000");
  assert.equal(say("pages", "42"), undefined);
  assert.equal(say("price", "-0.5"), "must be at least 0");
  assert.equal(say("title", "x".repeat(5000)), undefined, "a member without rules takes any text");
});

test("a pattern JavaScript cannot read is left to the server", () => {
  const odd = { ...m("isbn"), rules: { patterns: ["(?i)^abc$"] } };
  assert.equal(refusal(odd, "ABC"), undefined);
});

test("the rules a person reads beside a field before typing", () => {
  assert.deepEqual(ruleHints(m("code"), true), ["1 to 12 characters"]);
  assert.deepEqual(ruleHints(m("note"), true), ["at least 2 characters", "written, never shown"]);
  assert.deepEqual(ruleHints(m("pages"), false), ["1 to 10000"]);
  assert.deepEqual(ruleHints(m("price"), false), ["at least 0"]);
  assert.deepEqual(ruleHints(m("status"), true), ["default draft"]);
  assert.deepEqual(ruleHints(m("status"), false), [], "a default is a create's");
  assert.deepEqual(ruleHints(m("title"), true), []);
});

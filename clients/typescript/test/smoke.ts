// A run of the generated client against a live server, as a user would
// write it: internal/e2e compiles this with the client and runs it with
// RECORDS_URL and RECORDS_TOKEN set. It exits non-zero on the first failure.

import { Problem, RecordsClient, ResourceService, Transport } from "../src/records.js";
import type { Customer } from "../src/records.js";

declare const process: { env: Record<string, string | undefined>; exitCode: number };

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`failed: ${what}`);
}

async function problemOf(p: Promise<unknown>): Promise<Problem> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Problem) return e;
    throw e;
  }
  throw new Error("a call that must fail succeeded");
}

async function main(): Promise<void> {
  const client = new RecordsClient({ baseURL: process.env["RECORDS_URL"] ?? "", token: process.env["RECORDS_TOKEN"] });

  // Create, bulk create, read with fields, patch.
  const ann = await client.customers.create({ id: "ts-0", email: "ann@ts.example", firstName: "Ann" });
  check(ann.id === "ts-0" && ann.email === "ann@ts.example" && ann.version === 1, "create");
  const more = await client.customers.createMany([1, 2, 3, 4].map((i) => ({ id: `ts-${i}`, email: `${i}@ts.example` })));
  check(more.length === 4 && more[3]?.id === "ts-4", "createMany");
  const sparse = await client.customers.get("ts-0", { fields: ["email"] });
  check(sparse.email === "ann@ts.example" && sparse.firstName === undefined, "get with fields");
  const patched = await client.customers.patch("ts-0", { firstName: null, phone: "555" });
  check(patched.firstName === null && patched.phone === "555" && patched.version === 2, "patch");

  // A list walked by cursor through its query strings: every record once, in order.
  const seen: string[] = [];
  for await (const c of client.customers.all({ filter: { email: { contains: "@ts.example" } }, limit: 2, order_by: "id" })) {
    seen.push(c.id);
  }
  check(seen.join() === "ts-0,ts-1,ts-2,ts-3,ts-4", `all visited ${seen.join()}`);
  const page = await client.customers.list({ filter: { id: { in: ["ts-1", "ts-2"] } }, count: "exact" });
  check(page.customers.length === 2 && page.paging.total === 2 && page.paging.next_cursor === null, "list with in and count");
  // and, or and not nest in the query string; in holds a value with a comma.
  const nested = await client.customers.list({
    filter: { or: [{ id: { in: ["ts-4", "a,b"] } }, { and: [{ email: { prefix: "ann@" } }, { not: { phone: { is_null: true } } }] }] },
    order_by: "id",
  });
  check(nested.customers.map((c) => c.id).join() === "ts-0,ts-4", `nested filter found ${nested.customers.map((c) => c.id).join()}`);

  // An operation's envelope; a list narrowed to its path's id.
  const updated = await client.updateReturn("ts-ret", { status: "open" });
  check(updated.returns[0]?.status === "open", "updateReturn's envelope");
  const reopened = await client.reopenReturn("ts-ret");
  check(reopened.reopened && reopened.success === true, "reopenReturn");
  await client.users.create({ id: "ts-u", username: "ts-user" });
  const users = await client.listUsers("ts-u");
  check(users.users.length === 1 && users.users[0]?.username === "ts-user", "listUsers by id");
  const cases: string[] = [];
  const made = await client.updateCase("", { caseName: "ts" });
  for await (const c of client.listCasesAll({ filter: { caseName: "ts" } })) cases.push(c.id);
  check(cases.length === 1 && cases[0] === made.data.update_cases.returning[0]?.id, "listCasesAll");

  // Problems, keys, preconditions.
  const bad = await problemOf(client.customers.list({ limit: 5000 }));
  check(bad.status === 400 && bad.code === "invalid_request" && bad.member("limit") !== undefined && bad.requestId !== "", "a problem");
  const missing = await problemOf(client.customers.get("no-such"));
  check(missing.status === 404 && missing.code === "not_found", "not found");
  let replayed = "";
  const first = await client.returns.create({ order_id: "ts-key" }, { idempotencyKey: "ts-key" });
  const again = await client.returns.create({ order_id: "ts-key" }, { idempotencyKey: "ts-key", onResponse: (r) => (replayed = r.headers.get("Idempotent-Replayed") ?? "") });
  check(first.id === again.id && replayed === "true", "idempotency replay");
  const stale = await problemOf(client.customers.patch("ts-0", { phone: "1" }, { ifMatch: '"1"' }));
  check(stale.status === 412 && stale.code === "precondition_failed", "If-Match");

  // Who the client signed in as, and what it may do.
  const me = await client.me();
  check(me.role === "admin" && me.via === "token" && (me.can["returns"] ?? []).includes("delete"), "me");

  // Events: a page, and the stream.
  const events = await client.events.list({ types: ["customers.created"], limit: 2 });
  const object = events.events[0]?.data.object as Partial<Customer> | undefined;
  check(events.events.length === 2 && object?.id !== undefined, "events");
  // The stream resumes after a cursor: that of the log's first event.
  const vendor = await client.vendors.create({ vendorName: "ts" });
  const after = (await client.events.list({ limit: 1 })).paging.next_cursor ?? undefined;
  const stream = client.events.stream({ types: ["vendors.created"], cursor: after });
  const streamed = await stream.next();
  check(!streamed.done && streamed.value.event.type === "vendors.created" && streamed.value.event.data.object["id"] === vendor.id, "stream");
  await stream.return();

  // The generic service, given the routes a client reading the OpenAPI document finds:
  // a get answered in a list's envelope, a create in an operation's.
  const t = new Transport({ baseURL: process.env["RECORDS_URL"] ?? "", token: process.env["RECORDS_TOKEN"] });
  const generic = new ResourceService(t, "users", {
    list: { path: "/v1/users", at: ["users"] },
    get: { path: "/v1/users/:id", at: ["users", 0] },
    create: { path: "/v1/users", at: [] },
    patch: { path: "/v1/users/:id", at: [] },
    delete: { path: "/v1/users/:id", at: [] },
    history: { path: "/v1/users/:id/history", at: [] },
  });
  const madeUser = await generic.create({ id: "ts-g", username: "generic" });
  check(madeUser["id"] === "ts-g" && madeUser["version"] === 1, "generic create");
  const changed = await generic.patch("ts-g", { title: "Dr" }, { ifMatch: '"1"' });
  check(changed["title"] === "Dr" && changed["version"] === 2, "generic patch");
  check((await generic.get("ts-g"))["title"] === "Dr", "generic get through a list's envelope");
  const gpage = await generic.list({ filter: { id: "ts-g" }, count: "exact" });
  check(gpage.records.length === 1 && gpage.paging.total === 1, "generic list");
  const csv = await (await generic.export({ filter: { id: "ts-g" }, fields: ["username"] }, "text/csv")).text();
  check(csv.startsWith("id,version,username") && csv.includes("ts-g,2,generic"), `generic export: ${csv}`);
  check((await generic.history("ts-g")).events.length === 2, "generic history");
  await generic.delete("ts-g");
  check((await problemOf(generic.get("ts-g"))).status === 404, "generic get of a deleted record");
  check(!generic.has("restore"), "generic has");
  const genericCases = new ResourceService(t, "cases", { create: { path: "/v1/cases", at: ["data", "update_cases", "returning", 0] } });
  check(typeof (await genericCases.create({ caseName: "generic" }))["id"] === "string", "generic create through an operation's envelope");

  // Webhooks.
  const hook = await client.webhooks.create({ url: process.env["RECORDS_URL"] + "/hook", events: ["*"] });
  check(hook.secret.startsWith("whsec_"), "webhook secret");
  check((await client.webhooks.delete(hook.id)).deleted, "webhook delete");
  console.log("ok");
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

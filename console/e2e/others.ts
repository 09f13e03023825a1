// Steps of the browser test: a read-scoped token, the live events, webhooks,
// and the members' rules of an edited document.

import type { OpenAPIDocument, Schema } from "../src/document.js";
import { accessible } from "./accessible.js";
import { base, cat, check, doc, env, page, readToken, returns, returnsRes, rows, shot, signIn, signOut, status, step, token, writesDuring } from "./session.js";

export async function otherSteps(): Promise<void> {
  await step("a read-scoped token: no writes offered, or a 403 said plainly", async () => {
    await signOut();
    await signIn(readToken);
    await page.goto(`${base}/console#/r/returns/r-0001`);
    await page.getByRole("heading", { name: "returns / r-0001" }).waitFor();
    if (cat.me) {
      await page.getByRole("heading", { name: "History" }).waitFor();
      check((await page.getByRole("button", { name: "Save" }).count()) === 0, "GET /v1/me says no update: no Save");
      check((await page.getByRole("button", { name: /^Revert/ }).count()) === 0, "no update: no Revert to this version");
      check((await page.getByRole("button", { name: "Move to trash" }).count()) === 0, "no delete: no Move to trash");
      check((await page.getByLabel("description", { exact: true }).isDisabled()), "no update: the fields are read only");
      await page.getByRole("link", { name: "returns", exact: true }).first().click();
      await rows.first().waitFor();
      check((await page.getByRole("link", { name: "New record" }).count()) === 0, "no create: no New record");
      check((await page.getByRole("link", { name: "Trash", exact: true }).count()) === 0, "no restore: no Trash");
      await shot("read-only", true);
    } else {
      await page.getByLabel("description", { exact: true }).fill("not allowed");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("alert").filter({ hasText: "Not allowed (403)" }).waitFor();
      await shot("forbidden");
    }
    await signOut();
    await signIn(token);
  });

  await step("the live events, resumed after a broken connection", async () => {
    await page.getByRole("link", { name: "Live events" }).click();
    await status("Live").waitFor();
    await returns.create({ id: "r-live-1" });
    await page.getByRole("link", { name: "r-live-1" }).waitFor();
    await fetch(`${base}/__test/cut`, { method: "POST" });
    await status("reconnecting").waitFor();
    await returns.create({ id: "r-live-2" }); // committed while the console is away
    await fetch(`${base}/__test/resume`, { method: "POST" });
    await page.getByRole("link", { name: "r-live-2" }).waitFor();
    await status("reconnected").waitFor();
    const streams = (await (await fetch(`${base}/__test/streams`)).json()) as { last_event_ids: string[] };
    check(streams.last_event_ids[0] === "" && streams.last_event_ids.slice(1).some((id) => id !== ""), `reconnected with Last-Event-ID (${JSON.stringify(streams.last_event_ids)})`);
    check((await page.getByRole("link", { name: "r-live-1" }).count()) === 1, "no event twice");
    await accessible(page, "events");
    await shot("events");
  });

  await step("webhooks: make one, send a test, see it delivered", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("url", { exact: true }).fill(env("HOOK_URL") + "/hook");
    await page.getByLabel("events", { exact: true }).fill("returns.created");
    await page.getByLabel("description", { exact: true }).fill("from the console");
    await page.getByRole("button", { name: "Create webhook" }).click();
    const secret = await page.locator("code.secret").innerText();
    check(secret.startsWith("whsec_"), "the secret is shown once");
    await accessible(page, "webhooks");
    await shot("webhooks");
    await page.locator(".notice").getByRole("link").click();
    await page.getByRole("button", { name: "Send test" }).click();
    await status("Test queued").waitFor();
    for (let i = 0; i < 40; i++) {
      if ((await page.locator("main tbody td", { hasText: "delivered" }).count()) > 0) break;
      await page.waitForTimeout(250);
      await page.getByRole("button", { name: "Refresh deliveries" }).click();
    }
    await page.locator("main tbody td", { hasText: "delivered" }).first().waitFor();
    await accessible(page, "webhook");
    await shot("webhook");
  });

  await step("enums as selects, required members marked, rules and sensitive members (an edited document)", async () => {
    // The service's own resources have no members' rules; the document is
    // edited as the generator writes them (internal/gen/testdata/golden),
    // under names of its own: the console follows the structure, whatever
    // the components are called. The server has none of these rules, so only
    // what passes them is sent.
    const edited = structuredClone(doc) as OpenAPIDocument;
    const schemas = edited.components!["schemas"] as Record<string, Schema>;
    const component = (r: string | undefined) => schemas[(r ?? "").replace("#/components/schemas/", "")];
    const answered = schemas[returnsRes.schema];
    // A record takes its members from its sparse form, by allOf.
    const record = answered?.properties !== undefined ? answered : component(answered?.allOf?.[0]?.$ref);
    const body = edited.paths["/v1/returns/{id}"]?.patch?.requestBody?.content?.["application/json"]?.schema?.$ref ?? "";
    const write = component(body);
    const members = component(write?.allOf?.[0]?.$ref);
    check(record?.properties !== undefined && write !== undefined && members?.properties !== undefined, "the returns' record and write schemas");
    record.properties["status"] = { type: "string", enum: ["open", "received", "closed"] };
    members.properties["status"] = { $ref: "#/components/schemas/EditedStatus" };
    members.properties["rma"] = { oneOf: [{ type: "string", pattern: "^RMA-[0-9]{4}$" }, { type: "null" }] };
    members.properties["pin"] = { $ref: "#/components/schemas/TextInput", writeOnly: true };
    schemas["EditedStatus"] = { type: "string", enum: ["open", "received", "closed"] };
    schemas["EditedNewReturn"] = { allOf: [{ $ref: body }], required: ["status"] };
    const create = edited.paths["/v1/returns"]?.post?.requestBody?.content?.["application/json"];
    check(create?.schema !== undefined, "the returns' create body");
    create.schema = { oneOf: [{ $ref: "#/components/schemas/EditedNewReturn" }, { type: "array", items: { $ref: "#/components/schemas/EditedNewReturn" } }] };
    await page.route("**/v1/openapi.json", (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(edited) }));
    await page.goto(`${base}/console#/new/returns`);
    await page.reload(); // the document is read again, edited
    await page.getByRole("heading", { name: "New returns record" }).waitFor();
    const status = page.getByLabel("status", { exact: true });
    check((await status.evaluate((el) => el.tagName)) === "SELECT", "an enum is a select");
    check((await status.locator("option").allInnerTexts()).join() === "— choose —,open,received,closed", "its values, none chosen");
    check(await status.evaluate((el) => (el as HTMLSelectElement).required), "a required member is marked required");
    check((await page.locator(".field", { has: status }).locator(".required").innerText()) === "*", "and shows its mark");
    check((await page.getByLabel("pin", { exact: true }).count()) === 1, "a sensitive member is offered");
    await page.getByLabel("id", { exact: true }).fill("r-rules");
    await page.getByLabel("rma", { exact: true }).fill("RMA-12");
    const writes = await writesDuring(async () => {
      await page.getByRole("button", { name: "Create" }).click();
      await page.locator(".field.has-error").nth(1).waitFor();
    });
    check(writes.length === 0, `nothing sent (${writes.join(", ")})`);
    const errors = await page.locator(".field.has-error").allInnerTexts();
    check(errors.some((e) => e.startsWith("status") && e.includes("is required")), `the required member said: ${errors.join(" | ")}`);
    check(errors.some((e) => e.startsWith("rma") && e.includes("must match the pattern ^RMA-[0-9]{4}$")), `the pattern said: ${errors.join(" | ")}`);
    await accessible(page, "create with rules");
    await shot("create-rules");
    await status.selectOption("received");
    await page.getByLabel("rma", { exact: true }).fill("RMA-0042");
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("heading", { name: "returns / r-rules" }).waitFor();
    const made = await returns.get("r-rules");
    check(made["status"] === "received" && made["rma"] === "RMA-0042", "created on the server");
    check((await page.getByLabel("pin", { exact: true }).inputValue()) === "", "a sensitive member's input starts empty");
    await page.getByRole("link", { name: "returns", exact: true }).first().click();
    await rows.first().waitFor();
    const headers = await page.locator("main thead th").allInnerTexts();
    check(!headers.some((h) => h.trim() === "pin"), "no column for a sensitive member");
    await page.unroute("**/v1/openapi.json");
  });
}

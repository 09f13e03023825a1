// The console driven in Debian's Chromium by Playwright, as a person
// would use it, against a real server: internal/console's
// TestConsoleInBrowser builds and starts `records serve`, puts a proxy
// before it that can break event streams, and runs this with:
//   CONSOLE_URL  the proxy (the console and the API through it)
//   API_URL      the server itself, for the changes "someone else" makes
//   RECORDS_TOKEN, READ_TOKEN  a write and a read-scoped token
//   HOOK_URL     an endpoint that accepts webhook deliveries
//   SHOTS        where the screenshots go
//   CHROMIUM     the browser
// It prints what it measured and exits non-zero on the first failure.

import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import type { Page } from "playwright-core";
import { ResourceService, Transport } from "../../clients/typescript/src/runtime.js";
import { catalog } from "../src/document.js";
import { nextPageTime } from "./marks.js";
import type { OpenAPIDocument, Schema } from "../src/document.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const base = env("CONSOLE_URL");
const api = env("API_URL");
const token = env("RECORDS_TOKEN");
const readToken = env("READ_TOKEN");
const shots = env("SHOTS");

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`failed: ${what}`);
}

const transport = new Transport({ baseURL: api, token });
const doc = await transport.send<OpenAPIDocument>({ method: "GET", path: "/v1/openapi.json" });
const cat = catalog(doc);
const returnsRes = cat.byPlural.get("returns");
check(returnsRes !== undefined, "the document has returns");
const returns = new ResourceService(transport, "returns", returnsRes.routes);

// 230 returns: three pages of 100, 77 of them closed.
const statuses = ["open", "received", "closed"];
const seeded = Array.from({ length: 230 }, (_, k) => {
  const i = k + 1;
  return { id: `r-${String(i).padStart(4, "0")}`, status: statuses[i % 3], description: `return ${i}`, customerEmail: `c${i}@example.com` };
});
await transport.send({ method: "POST", path: "/v1/returns", body: seeded });

const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
const page = await context.newPage();
// Generous: the whole suite runs beside it on two cores.
page.setDefaultTimeout(30_000);
const faults: string[] = [];
page.on("pageerror", (e) => faults.push(`page error: ${e.message}`));
page.on("console", (m) => {
  if (/Content.Security.Policy|Refused to/i.test(m.text())) faults.push(`CSP: ${m.text()}`);
});

const timings: string[] = [];
let shotNo = 0;
async function shot(name: string, fullPage = false): Promise<void> {
  shotNo++;
  if (!fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${shots}/${String(shotNo).padStart(2, "0")}-${name}.png`, fullPage });
}

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  const start = performance.now();
  try {
    await fn();
  } catch (e) {
    await page.screenshot({ path: `${shots}/failure.png`, fullPage: true }).catch(() => undefined);
    throw new Error(`step "${name}": ${e instanceof Error ? e.message : String(e)}`);
  }
  if (faults.length) throw new Error(`step "${name}": ${faults.join("; ")}`);
  console.log(`ok  ${name} (${Math.round(performance.now() - start)} ms)`);
}

/** Every control has an accessible name, and text keeps a contrast of 4.5:1 (3:1 when large). */
async function accessible(p: Page, where: string): Promise<void> {
  const problems = await p.evaluate(() => {
    const out: string[] = [];
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    for (const el of Array.from(document.querySelectorAll("input, select, textarea, button, a[href]"))) {
      if (!visible(el)) continue;
      const labelled =
        (el as HTMLInputElement).labels?.length ||
        el.getAttribute("aria-label") ||
        el.getAttribute("aria-labelledby") ||
        ((el.tagName === "BUTTON" || el.tagName === "A") && (el.textContent ?? "").trim() !== "");
      if (!labelled) out.push(`unnamed ${el.outerHTML.slice(0, 120)}`);
    }
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = (c: number[]) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
    };
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c[3] ?? 0) > 0) return c;
      }
      return [255, 255, 255];
    };
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const own = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "");
      if (!own || !visible(el) || (el as HTMLButtonElement).disabled || el.closest("[disabled], noscript")) continue;
      const style = getComputedStyle(el);
      const [a, b] = [lum(rgb(style.color)), lum(background(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`contrast ${ratio.toFixed(2)} of "${(el.textContent ?? "").trim().slice(0, 40)}"`);
    }
    return out;
  });
  check(problems.length === 0, `${where}: ${problems.slice(0, 5).join("; ")}`);
}

const rows = page.locator("main tbody tr");
const firstId = () => rows.first().locator("td").first().innerText();
const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

async function signIn(secret: string): Promise<void> {
  await page.getByLabel("API token").fill(secret);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Resources" }).waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API token").waitFor();
}

await step("sign in with the keyboard", async () => {
  await page.goto(`${base}/console`);
  await page.getByLabel("API token").waitFor();
  await accessible(page, "sign-in");
  await shot("sign-in");
  await page.keyboard.press("Tab");
  check((await page.evaluate(() => document.activeElement?.id)) === "token", "Tab reaches the API token first");
  await page.keyboard.type(token);
  await page.keyboard.press("Enter");
  await page.getByRole("navigation", { name: "Resources" }).waitFor();
  const links = await page.getByRole("navigation", { name: "Resources" }).getByRole("link").allInnerTexts();
  for (const r of cat.resources) check(links.includes(r.plural), `the navigation lists ${r.plural}`);
  check(await page.evaluate(() => document.cookie === ""), "no cookie");
  check((await page.evaluate(() => Object.keys(sessionStorage))).length === 1, "the token is in session storage");
});

/** Presses Tab until the focus is on what `is` says (at most 60 times), and answers whether it got there. */
async function tabTo(is: () => boolean): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(is)) return true;
  }
  return false;
}

await step("the keyboard reaches a resource, orders by a header and opens a record", async () => {
  check(await tabTo(() => document.activeElement?.textContent === "returns" && document.activeElement.closest("nav") !== null), "Tab reaches returns in the navigation");
  await page.keyboard.press("Enter");
  await rows.nth(99).waitFor();
  check(await tabTo(() => document.activeElement?.tagName === "BUTTON" && document.activeElement.textContent?.trim() === "id" && document.activeElement.closest("th") !== null), "Tab reaches the id header");
  await page.keyboard.press("Enter");
  await page.locator('th[aria-sort="ascending"]').waitFor();
  check(await tabTo(() => document.activeElement?.tagName === "A" && document.activeElement.closest("tbody") !== null), "Tab reaches a record");
  const id = await page.evaluate(() => document.activeElement?.textContent ?? "");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: `returns / ${id}` }).waitFor();
  await page.goBack();
  await rows.nth(99).waitFor();
});

await step("a list: a column per member, the first page of 100", async () => {
  await page.getByRole("navigation", { name: "Resources" }).getByRole("link", { name: "returns", exact: true }).click();
  await rows.nth(99).waitFor();
  const headers = await page.locator("main thead th").allInnerTexts();
  for (const m of returnsRes.members) check(headers.some((h) => h.trim() === m.name), `a column for ${m.name}`);
  // A fresh load of the page, measured by the browser.
  await page.reload();
  await rows.nth(99).waitFor();
  const ready = await page.evaluate(() => performance.getEntriesByName("records:list-ready")[0]?.startTime ?? -1);
  const nav = await page.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined)?.domContentLoadedEventEnd ?? -1);
  const documentReady = await page.evaluate(() => performance.getEntriesByName("records:document-ready")[0]?.startTime ?? -1);
  timings.push(`first page of 100 records interactive ${Math.round(ready)} ms after navigation (DOMContentLoaded at ${Math.round(nav)} ms, the document read and its catalog built at ${Math.round(documentReady)} ms)`);
  check((await rows.count()) === 100, "100 rows");
  await accessible(page, "list");
  await shot("list");
});

await step("pages by cursor: Next page, Previous page", async () => {
  const times: number[] = [];
  for (const want of ["r-0101", "r-0201"]) {
    await page.getByRole("button", { name: "Next page" }).click();
    await page.getByRole("link", { name: want, exact: true }).waitFor();
    times.push(await page.evaluate(nextPageTime));
  }
  check((await rows.count()) === 30, "30 records on the last page");
  check(await page.getByRole("button", { name: "Next page" }).isDisabled(), "no next page after the last");
  await page.getByText("Page 3 · 30 shown").waitFor();
  await page.getByRole("button", { name: "Previous page" }).click();
  await page.getByRole("link", { name: "r-0101", exact: true }).waitFor();
  timings.push(`next page: ${times.map((t) => Math.round(t) + " ms").join(", ")}`);
});

await step("order by a header's click", async () => {
  await page.getByRole("button", { name: "First page" }).click();
  await page.getByRole("link", { name: "r-0001", exact: true }).waitFor();
  const idHeader = page.getByRole("button", { name: "id", exact: true });
  await idHeader.click();
  await page.locator('th[aria-sort="ascending"]').waitFor();
  await idHeader.click();
  await page.locator('th[aria-sort="descending"]').waitFor();
  await page.getByRole("link", { name: "r-0230", exact: true }).waitFor();
  check((await firstId()) === "r-0230", "descending by id");
});

await step("filter by member and operator, count, export", async () => {
  await page.getByRole("button", { name: "Add filter" }).click();
  await page.getByLabel("Filter 1 member").selectOption("status");
  const ops = await page.getByLabel("Filter 1 operator").locator("option").allInnerTexts();
  check(ops.includes("contains") && ops.includes("one of") && ops.includes("is empty"), `text operators offered: ${ops.join()}`);
  await page.getByLabel("Filter 1 operator").selectOption("eq");
  await page.getByLabel("Filter 1 value").fill("closed");
  await page.getByLabel("Filter 1 value").press("Enter");
  await page.getByRole("link", { name: "r-0230", exact: true }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 77);
  const col = returnsRes.members.findIndex((m) => m.name === "status");
  const values = await rows.locator(`td:nth-child(${col + 1})`).allInnerTexts();
  check(values.every((v) => v === "closed"), "every row is closed");
  await page.getByRole("button", { name: "Count" }).click();
  await page.getByText("77 records").waitFor();
  await shot("list-filtered");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  const csv = readFileSync(await download.path(), "utf8").trim().split(/\r?\n/);
  check(csv[0]?.startsWith("id,version,") === true && csv.length === 78, `the export has a header and 77 rows (${csv.length} lines)`);
  check(csv[1]?.startsWith("r-0230,") === true, `the export follows the order (${csv[1]})`);
});

await step("search where the list declares q", async () => {
  const box = page.getByRole("searchbox", { name: "Search" });
  if (!returnsRes.search) {
    check((await box.count()) === 0, "no search box where the list takes no q");
    console.log("    (the list declares no q: no search box, as the document says)");
    return;
  }
  await page.getByRole("link", { name: "Clear" }).click();
  await box.fill("return 17");
  await box.press("Enter");
  await page.getByRole("link", { name: "r-0017", exact: true }).waitFor();
});

await step("create a record", async () => {
  await page.goto(`${base}/console#/r/returns`);
  await page.getByRole("link", { name: "New record" }).click();
  await page.getByRole("heading", { name: "New returns record" }).waitFor();
  await page.getByLabel("id", { exact: true }).fill("r-new");
  await page.getByLabel("description", { exact: true }).fill("made in the console");
  await page.getByLabel("status", { exact: true }).fill("open");
  await accessible(page, "create");
  await shot("create");
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { name: "returns / r-new" }).waitFor();
  check((await returns.get("r-new"))["description"] === "made in the console", "created on the server");
});

await step("children by expand on a record, the parent as a link on the child", async () => {
  const edge = returnsRes.edges.find((e) => e.many);
  const kids = edge ? cat.resourceOf(edge.record) : undefined;
  check(edge !== undefined && kids !== undefined, "returns has children");
  const parent = kids.members.find((m) => m.name === "return_id");
  check(parent !== undefined && kids.routes.create !== undefined, `${kids.plural} names its return`);
  await transport.send({ method: "POST", path: `/v1/${kids.plural}`, body: { id: "li-1", return_id: "r-0001", name: "a child" } });
  await page.goto(`${base}/console#/r/returns/r-0001`);
  const related = page.getByRole("region", { name: edge.name });
  await page.getByRole("heading", { name: `${edge.name} (1)` }).waitFor();
  await related.getByRole("link", { name: "li-1", exact: true }).click();
  await page.getByRole("heading", { name: `${kids.plural} / li-1` }).waitFor();
  await page.getByRole("link", { name: "r-0001", exact: true }).waitFor();
  await accessible(page, "child record");
  await page.goto(`${base}/console#/r/returns/r-new`);
  await page.getByRole("heading", { name: "returns / r-new" }).waitFor();
});

const capped = returnsRes.members.find((m) => m.name !== "id" && m.writable && m.rules.maxLength !== undefined && m.kind === "text");
/** The writes the page sends while fn runs. */
async function writesDuring(fn: () => Promise<void>): Promise<string[]> {
  const writes: string[] = [];
  const on = (r: { method(): string; url(): string }) => {
    if (r.method() !== "GET" && r.url().includes("/v1/")) writes.push(`${r.method()} ${r.url()}`);
  };
  page.on("request", on);
  try {
    await fn();
  } finally {
    page.off("request", on);
  }
  return writes;
}

await step("a rule the document states is said beside its field before sending", async () => {
  check(capped !== undefined && capped.rules.maxLength !== undefined, "returns has a member with a maximum length");
  const max = capped.rules.maxLength;
  const field = page.getByLabel(capped.name, { exact: true });
  const fault = page.locator(".field.has-error");
  const writes = await writesDuring(async () => {
    await field.fill("a".repeat(max + 1));
    await page.getByRole("button", { name: "Save" }).click();
    await fault.waitFor();
  });
  check(writes.length === 0, `nothing sent (${writes.join(", ")})`);
  const said = await fault.locator(".field-error").innerText();
  check(said === `must be at most ${max} characters long (it has ${max + 1})`, `the rule's words: ${said}`);
  check((await fault.locator("label").innerText()).startsWith(capped.name), "the problem stands beside its field");
  check((await field.getAttribute("aria-invalid")) === "true", "the field is marked invalid");
});

await step("a problem only the server finds, beside its field", async () => {
  // 600 characters pass the document's maxLength, but the member is
  // indexed and the server counts its 1,200 bytes: its 400 is the authority.
  check(capped !== undefined, "returns has a member with a maximum length");
  const field = page.getByLabel(capped.name, { exact: true });
  await field.fill("é".repeat(600));
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("alert").first().waitFor();
  const fault = page.locator(".field.has-error");
  await fault.waitFor();
  check((await fault.locator("label").innerText()).startsWith(capped.name), "the problem stands beside its field");
  check((await field.getAttribute("aria-invalid")) === "true", "the field is marked invalid");
  await shot("field-problem");
});

await step("edit with If-Match", async () => {
  await page.reload();
  await page.getByLabel("description", { exact: true }).fill("edited once");
  await page.getByRole("button", { name: "Save" }).click();
  await status("Saved: version 2.").waitFor();
  check((await returns.get("r-new"))["description"] === "edited once", "saved on the server");
  await accessible(page, "record");
  await shot("record", true);
});

await step("a 412: changed by someone else, then a reload", async () => {
  await returns.patch("r-new", { description: "changed elsewhere" });
  await page.getByLabel("description", { exact: true }).fill("my edit");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("alert").filter({ hasText: "changed by someone else" }).waitFor();
  check((await returns.get("r-new"))["description"] === "changed elsewhere", "nothing overwritten");
  await shot("conflict");
  await page.getByRole("button", { name: "Reload" }).click();
  await page.waitForFunction(() => (document.getElementById("edit-description") as HTMLInputElement | null)?.value === "changed elsewhere");
  await page.getByLabel("description", { exact: true }).fill("my edit, again");
  await page.getByRole("button", { name: "Save" }).click();
  await status("Saved: version 4.").waitFor();
});

await step("history with what changed at each version", async () => {
  const history = page.locator("ol.history > li");
  await page.waitForFunction(() => document.querySelectorAll("ol.history > li").length === 4);
  const newest = history.first();
  check((await newest.innerText()).includes("Version 4"), "the newest version first");
  const row = newest.locator("table.diff tbody tr");
  check((await row.count()) >= 1, "a difference");
  const cells = await newest.locator("table.diff tbody tr").filter({ hasText: "description" }).locator("td").allInnerTexts();
  check(cells[0] === "changed elsewhere" && cells[1] === "my edit, again", `the diff of version 4: ${cells.join(" → ")}`);
  await shot("history", true);
});

await step("revert to an earlier version, from the history", async () => {
  if (!returnsRes.routes.revert) {
    check((await page.getByRole("button", { name: /Revert/ }).count()) === 0, "no revert without its route");
    console.log("    (the document declares no revert: no Revert to this version)");
    return;
  }
  const versions = (await returns.history("r-new", { limit: 100 })).events;
  const two = versions.find((e) => e.data.object["version"] === 2)?.data.object;
  check(two !== undefined, "version 2 is in the record's history");
  check((await page.getByRole("button", { name: "Revert to this version (version 4)" }).count()) === 0, "no revert to the current version");
  await page.getByRole("button", { name: "Revert to this version (version 2)" }).click();
  const writes = await writesDuring(async () => {
    await page.getByRole("button", { name: "Yes, revert" }).click();
    await page.locator("ol.history > li").first().filter({ hasText: "Version 5" }).waitFor();
  });
  check(writes.length === 1 && writes[0]!.startsWith("POST ") && writes[0]!.endsWith("/v1/returns/r-new/revert"), `one POST …/revert (${writes.join(", ")})`);
  await page.waitForFunction(() => (document.getElementById("edit-description") as HTMLInputElement | null)?.value === "edited once");
  await page.getByText("Version 5", { exact: true }).first().waitFor();
  // Every member a version holds is back to version 2's value, on the server and in the form.
  const now = await returns.get("r-new");
  check(now["version"] === 5, `a new version (${String(now["version"])})`);
  for (const m of returnsRes.members.filter((x) => x.writable && !x.readOnly && !x.writeOnly)) {
    check(JSON.stringify(now[m.name]) === JSON.stringify(two[m.name]), `${m.name} is version 2's: ${JSON.stringify(now[m.name])} vs ${JSON.stringify(two[m.name])}`);
    const field = page.locator(`#edit-${m.name}`);
    if ((await field.count()) === 1 && typeof two[m.name] === "string") {
      check((await field.inputValue()) === two[m.name], `the form shows version 2's ${m.name}`);
    }
  }
  // The history tells it as an update that names the version it went back to.
  const newest = page.locator("ol.history > li").first();
  const head = await newest.locator(".event-head").innerText();
  check(head.includes("Version 5") && head.includes("returns.updated") && head.includes("reverted from version 2"), `the newest version says the revert: ${head}`);
  const cells = await newest.locator("table.diff tbody tr").filter({ hasText: "description" }).locator("td").allInnerTexts();
  check(cells[0] === "my edit, again" && cells[1] === "edited once", `the diff of the revert: ${cells.join(" → ")}`);
  const event = (await returns.history("r-new", { limit: 100 })).events.find((e) => e.data.object["version"] === 5);
  check(event?.type === "returns.updated" && event.reverted_from === 2, `the event is an update with reverted_from 2 (${JSON.stringify(event?.reverted_from)})`);
  await accessible(page, "history after a revert");
  await shot("revert", true);
});

await step("move to trash", async () => {
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.getByRole("button", { name: "Yes, move to trash" }).click();
  await page.getByRole("heading", { name: "returns", exact: true }).waitFor();
  const gone = await returns.get("r-new").then(
    () => 200,
    (e: { status?: number }) => e.status,
  );
  check(gone === 404, `the record is gone (${gone})`);
});

await step("the trash and Restore, where the document declares them", async () => {
  const trash = page.getByRole("link", { name: "Trash", exact: true });
  if (!returnsRes.trash || !returnsRes.routes.restore) {
    check((await trash.count()) === (returnsRes.trash ? 1 : 0) && (await page.getByRole("button", { name: /^Restore/ }).count()) === 0, "no trash view or Restore without their routes");
    console.log("    (the document declares no trash: no Trash view, no Restore)");
    return;
  }
  await trash.click();
  await page.getByRole("button", { name: "Restore r-new" }).click();
  await status("Restored r-new.").waitFor();
  check((await returns.get("r-new"))["id"] === "r-new", "restored on the server");
  await shot("trash");
});

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

await browser.close();
for (const t of timings) console.log(`measured: ${t}`);
console.log("ok");

// How the console pages through a large list: internal/console's
// TestConsolePagingAtScale seeds SCALE records of returns, then this
// measures, in the browser, the time from a click on "Next page" to the
// next page standing on the screen — on the first pages, and on pages deep
// in the list, reached by a cursor in the address — and the time from a
// fresh load of the list to its first page standing, and prints them.
// Environment: CONSOLE_URL, RECORDS_TOKEN, CHROMIUM, SCALE.

import { chromium } from "playwright-core";
import { ResourceService, Transport } from "../../clients/typescript/src/runtime.js";
import { catalog } from "../src/document.js";
import { nextPageTime } from "./marks.js";
import type { OpenAPIDocument } from "../src/document.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const base = env("CONSOLE_URL");
const token = env("RECORDS_TOKEN");
const total = Number(env("SCALE"));

const transport = new Transport({ baseURL: base, token });
const cat = catalog(await transport.send<OpenAPIDocument>({ method: "GET", path: "/v1/openapi.json" }));
const returns = new ResourceService(transport, "returns", cat.byPlural.get("returns")!.routes);

let t0 = performance.now();
for (let from = 0; from < total; from += 1000) {
  const batch = Array.from({ length: Math.min(1000, total - from) }, (_, k) => {
    const i = from + k;
    return { id: `r-${String(i).padStart(7, "0")}`, status: ["open", "received", "closed"][i % 3], description: `return ${i}`, customerEmail: `c${i}@example.com` };
  });
  await transport.send({ method: "POST", path: "/v1/returns", body: batch });
}
console.log(`seeded ${total} returns in ${Math.round(performance.now() - t0)} ms`);

// A cursor 90 % of the way down (with 21 pages after it at least), found by
// walking the list by 1,000.
const deepAt = Math.max(0, Math.min(total * 0.9, total - 2100));
t0 = performance.now();
let deep = "";
for (let seen = 0, cursor: string | undefined; seen < deepAt; ) {
  const page = await returns.list({ limit: Math.min(1000, deepAt - seen), fields: ["id"], ...(cursor ? { cursor } : {}) });
  seen += page.records.length;
  cursor = page.paging.next_cursor ?? undefined;
  deep = cursor ?? "";
}
console.log(`walked to record ${deepAt} by the API in ${Math.round(performance.now() - t0)} ms`);

const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(`${base}/console`);
await page.getByLabel("API token").fill(token);
await page.getByRole("button", { name: "Sign in" }).click();
await page.getByRole("navigation", { name: "Resources" }).waitFor();

// The first page of 100 of the whole list, on a fresh load of the page
// signed in (the document read, the catalog built, the page asked for and
// rendered), from the navigation's start, five times.
// Beside it, what the browser's Resource Timing says the document's and
// the list's calls took (the rest is the page's script and rendering).
const firsts: number[] = [];
const documentReady: number[] = [];
const documentCalls: number[] = [];
const listCalls: number[] = [];
await page.goto(`${base}/console#/r/returns`);
for (let i = 0; i < 5; i++) {
  await page.reload();
  await page.locator("main tbody tr").nth(99).waitFor();
  const t = await page.evaluate(() => {
    const call = (path: RegExp) => performance.getEntriesByType("resource").find((e) => path.test(new URL(e.name).pathname))?.duration ?? NaN;
    const mark = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
    return { ready: mark("records:list-ready"), catalog: mark("records:document-ready"), document: call(/^\/v1\/openapi\.json$/), list: call(/^\/v1\/returns$/) };
  });
  firsts.push(t.ready);
  documentReady.push(t.catalog);
  documentCalls.push(t.document);
  listCalls.push(t.list);
}

async function pageTimes(start: string, pages: number): Promise<number[]> {
  await page.goto(`${base}/console#/r/returns${start ? "?cursor=" + encodeURIComponent(start) : ""}`);
  await page.locator("main tbody tr").nth(99).waitFor();
  const times: number[] = [];
  for (let i = 0; i < pages; i++) {
    const before = await page.locator("main tbody tr td a").first().innerText();
    const marks = await page.evaluate(() => performance.getEntriesByName("records:list-ready").length);
    await page.getByRole("button", { name: "Next page" }).click();
    await page.waitForFunction(
      ([b, n]) => document.querySelector("main tbody tr td a")?.textContent !== b && performance.getEntriesByName("records:list-ready").length > (n as number),
      [before, marks] as const,
    );
    times.push(await page.evaluate(nextPageTime));
  }
  return times;
}

const summary = (ts: number[]) => {
  const s = [...ts].sort((a, b) => a - b);
  return `median ${Math.round(s[Math.floor(s.length / 2)] ?? 0)} ms, min ${Math.round(s[0] ?? 0)}, max ${Math.round(s[s.length - 1] ?? 0)} (${s.length} pages)`;
};
const loads = (ts: number[]) => summary(ts).replace("pages)", "loads)");
console.log(`measured: first page of 100 of ${total} records interactive after navigation: ${loads(firsts)}`);
console.log(`measured: the document read and its catalog built after navigation: ${loads(documentReady)}`);
console.log(`measured: the document's call ${loads(documentCalls)}, the list's call ${loads(listCalls)}`);
const first = await pageTimes("", 20);
const later = await pageTimes(deep, 20);
console.log(`measured: next page at the start of ${total} records: ${summary(first)}`);
console.log(`measured: next page after record ${deepAt} of ${total}: ${summary(later)}`);
await browser.close();

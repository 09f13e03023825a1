// The shared state of the browser test: the environment, the server's
// document, the seeded returns, the browser's page, and the helpers each
// step uses. Importing it seeds the server and starts the browser.

import { chromium } from "playwright-core";
import { ResourceService, Transport } from "../../clients/typescript/src/runtime.js";
import { catalog } from "../src/document.js";
import type { OpenAPIDocument } from "../src/document.js";

export const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
export const base = env("CONSOLE_URL");
export const api = env("API_URL");
export const token = env("RECORDS_TOKEN");
export const readToken = env("READ_TOKEN");
export const shots = env("SHOTS");

export function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`failed: ${what}`);
}

export const transport = new Transport({ baseURL: api, token });
export const doc = await transport.send<OpenAPIDocument>({ method: "GET", path: "/v1/openapi.json" });
export const cat = catalog(doc);
const found = cat.byPlural.get("returns");
check(found !== undefined, "the document has returns");
export const returnsRes = found;
export const returns = new ResourceService(transport, "returns", returnsRes.routes);

// 230 returns: three pages of 100, 77 of them closed.
export const statuses = ["open", "received", "closed"];
export const seeded = Array.from({ length: 230 }, (_, k) => {
  const i = k + 1;
  return { id: `r-${String(i).padStart(4, "0")}`, status: statuses[i % 3], description: `return ${i}`, customerEmail: `c${i}@example.com` };
});
await transport.send({ method: "POST", path: "/v1/returns", body: seeded });

export const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
export const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
export const page = await context.newPage();
// Generous: the whole suite runs beside it on two cores.
page.setDefaultTimeout(30_000);
export const faults: string[] = [];
page.on("pageerror", (e) => faults.push(`page error: ${e.message}`));
page.on("console", (m) => {
  if (/Content.Security.Policy|Refused to/i.test(m.text())) faults.push(`CSP: ${m.text()}`);
});

export const timings: string[] = [];
let shotNo = 0;
export async function shot(name: string, fullPage = false): Promise<void> {
  shotNo++;
  if (!fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${shots}/${String(shotNo).padStart(2, "0")}-${name}.png`, fullPage });
}

export async function step(name: string, fn: () => Promise<void>): Promise<void> {
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


export const rows = page.locator("main tbody tr");
export const firstId = () => rows.first().locator("td").first().innerText();
export const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

export async function signIn(secret: string): Promise<void> {
  await page.getByLabel("API token").fill(secret);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Resources" }).waitFor();
}

export async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API token").waitFor();
}

/** Presses Tab until the focus is on what `is` says (at most 60 times), and answers whether it got there. */
export async function tabTo(is: () => boolean): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(is)) return true;
  }
  return false;
}

/** The writes the page sends while fn runs. */
export async function writesDuring(fn: () => Promise<void>): Promise<string[]> {
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

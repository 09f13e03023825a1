// Steps of the browser test: signing in, the keyboard, and a list —
// its pages, orders, filters, count, export and search.

import { readFileSync } from "node:fs";
import { accessible } from "./accessible.js";
import { nextPageTime } from "./marks.js";
import { base, cat, check, firstId, page, returnsRes, rows, shot, step, tabTo, timings, token } from "./session.js";

export async function listSteps(): Promise<void> {
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
}

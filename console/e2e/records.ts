// Steps of the browser test: a record made, related, checked by its
// rules, edited, raced, its history read and reverted, trashed and restored.

import { accessible } from "./accessible.js";
import { base, cat, check, page, returns, returnsRes, shot, status, step, transport, writesDuring } from "./session.js";

const capped = returnsRes.members.find((m) => m.name !== "id" && m.writable && m.rules.maxLength !== undefined && m.kind === "text");

export async function recordSteps(): Promise<void> {
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
}

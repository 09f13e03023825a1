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
// The steps are in lists.ts, records.ts and others.ts, in the order run
// here; session.ts holds what they share.

import { listSteps } from "./lists.js";
import { otherSteps } from "./others.js";
import { recordSteps } from "./records.js";
import { browser, timings } from "./session.js";

await listSteps();
await recordSteps();
await otherSteps();
await browser.close();
for (const t of timings) console.log(`measured: ${t}`);
console.log("ok");

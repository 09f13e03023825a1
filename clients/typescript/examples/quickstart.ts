// Quickstart of the TypeScript client. Build and run it against a server:
//
//   cd clients/typescript && npm ci && npx tsc -p .
//   RECORDS_URL=http://127.0.0.1:8080 TOKEN=rk_… node dist/examples/quickstart.js
import { randomUUID } from "node:crypto";

import { Problem, RecordsClient } from "../src/records.js";

const client = new RecordsClient({ baseURL: process.env["RECORDS_URL"] ?? "http://127.0.0.1:8080", token: process.env["TOKEN"] });

// A create that is safe to retry: the same key answers the same record.
const ret = await client.returns.create({ status: "open", order_id: "o-17" }, { idempotencyKey: randomUUID() });
console.log("created", ret.id, "at version", ret.version);

// Every open return, page after page by cursor.
let open = 0;
for await (const r of client.returns.all({ filter: { status: "open" }, order_by: "-created_date" })) {
  open += r.id ? 1 : 0;
}
console.log("open returns:", open);

// A problem names the members at fault.
try {
  await client.customers.list({ limit: 5000 });
} catch (e) {
  if (e instanceof Problem) console.log("refused:", e.status, e.code, e.member("limit"));
}

// An operation of the contract answers its own envelope: {returns: [record]}.
const res = await client.updateReturn(ret.id, { status: "received" });
console.log("updated", res.returns[0]?.id, "to", res.returns[0]?.status);

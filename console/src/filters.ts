// The filter builder's conditions, and the list's state as the address
// keeps it (so a list can be bookmarked, shared and reloaded).

import type { Filter, FilterOps, FilterValue } from "../../clients/typescript/src/runtime.js";
import type { Member, Operator, Resource } from "./document.js";

/** One row of the filter builder: a member, an operator and the value typed. */
export interface Condition {
  member: string;
  op: Operator;
  value: string;
}

/** Words for the operators, as the builder's select shows them. */
export const operatorNames: Record<Operator, string> = {
  eq: "equals",
  ne: "does not equal",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  in: "one of",
  nin: "none of",
  contains: "contains",
  prefix: "starts with",
  is_null: "is empty",
};

/** The value of a condition as the API takes it; a date-time typed without a zone is UTC. */
function value(m: Member | undefined, raw: string): FilterValue {
  const v = raw.trim();
  if (m?.kind === "date-time" && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(v)) return v + "Z";
  return v;
}

/** The filter of conditions, AND-ed: one operator object per member, and-ed filters where one repeats. */
export function toFilter(conds: Condition[], r: Resource): Filter | undefined {
  const byMember = new Map<string, FilterOps>();
  const extra: Filter[] = [];
  for (const c of conds) {
    const m = r.members.find((x) => x.name === c.member);
    let ops = byMember.get(c.member);
    if (!ops) byMember.set(c.member, (ops = {}));
    const target: FilterOps = ops[c.op] === undefined ? ops : {};
    if (target !== ops) extra.push({ [c.member]: target });
    if (c.op === "is_null") target.is_null = c.value !== "false";
    else if (c.op === "in" || c.op === "nin") target[c.op] = c.value.split(",").map((x) => value(m, x)).filter((x) => x !== "");
    else if (c.op === "contains" || c.op === "prefix") target[c.op] = c.value;
    else target[c.op] = value(m, c.value);
  }
  if (byMember.size === 0) return undefined;
  const f: Filter = Object.fromEntries(byMember);
  if (extra.length) f.and = extra;
  return f;
}

/** A list's state: filter conditions, order, search, the trash view and the page's cursor. */
export interface ListState {
  conds: Condition[];
  order: string;
  q: string;
  trashed: boolean;
  cursor: string;
}

export const emptyList: ListState = { conds: [], order: "", q: "", trashed: false, cursor: "" };

export function encodeList(s: ListState): string {
  const p = new URLSearchParams();
  if (s.conds.length) p.set("filter", JSON.stringify(s.conds.map((c) => [c.member, c.op, c.value])));
  if (s.order) p.set("order", s.order);
  if (s.q) p.set("q", s.q);
  if (s.trashed) p.set("trashed", "only");
  if (s.cursor) p.set("cursor", s.cursor);
  return p.toString();
}

export function decodeList(query: string): ListState {
  const p = new URLSearchParams(query);
  let conds: Condition[] = [];
  try {
    const raw = JSON.parse(p.get("filter") ?? "[]") as unknown;
    if (Array.isArray(raw)) {
      conds = raw
        .filter((x): x is [string, Operator, string] => Array.isArray(x) && x.length === 3 && x.every((y) => typeof y === "string"))
        .map(([member, op, value]) => ({ member, op, value }));
    }
  } catch {
    conds = [];
  }
  return { conds, order: p.get("order") ?? "", q: p.get("q") ?? "", trashed: p.get("trashed") === "only", cursor: p.get("cursor") ?? "" };
}

/** The next order after a click on a member's header: ascending, then descending, then none. */
export function nextOrder(current: string, member: string): string {
  if (current === member) return "-" + member;
  if (current === "-" + member) return "";
  return member;
}

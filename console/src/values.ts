// Members' values between the API and the inputs of a form, and the
// differences between two versions of a record.

import type { Member } from "./document.js";

/** A record as the API answers it. */
export type Rec = Record<string, unknown>;

/** The text an input shows for a value. */
export function toInput(m: Member, v: unknown): string {
  if (v === null || v === undefined) return "";
  switch (m.kind) {
    case "object":
      return JSON.stringify(v, null, 2);
    case "date-time": {
      // datetime-local has no zone: the console shows and takes UTC.
      const d = new Date(String(v));
      return Number.isNaN(d.getTime()) ? String(v) : d.toISOString().slice(0, 19);
    }
    default:
      return String(v);
  }
}

/** A problem with what was typed, said next to the field. */
export class InputError extends Error {}

/** The value to send for what an input holds; "" is null. */
export function fromInput(m: Member, text: string): unknown {
  if (text.trim() === "") return null;
  switch (m.kind) {
    case "integer":
    case "number": {
      const n = Number(text);
      if (!Number.isFinite(n) || (m.kind === "integer" && !Number.isInteger(n))) throw new InputError(m.kind === "integer" ? "not a whole number" : "not a number");
      return n;
    }
    case "boolean":
      return text === "true";
    case "object":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new InputError("not valid JSON");
      }
    case "date-time":
      return /(Z|[+-]\d\d:\d\d)$/.test(text) ? text : text + "Z";
    default:
      return text;
  }
}

/** Whether an input's text says the same as the record's value (so the member is not sent). */
export function unchanged(m: Member, v: unknown, text: string): boolean {
  return toInput(m, v) === text;
}

/** The text a table cell shows. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A member that changed between two versions. */
export interface Change {
  member: string;
  before: unknown;
  after: unknown;
}

/** The members whose values differ between two versions (every member of after for a first version). */
export function diff(before: Rec | undefined, after: Rec): Change[] {
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after)]);
  names.delete("version");
  const out: Change[] = [];
  for (const name of names) {
    const a = before?.[name];
    const b = after[name];
    if (before && JSON.stringify(a) === JSON.stringify(b)) continue;
    if (!before && (b === null || b === undefined)) continue;
    out.push({ member: name, before: a, after: b });
  }
  return out;
}

/** Shows a CSV export as a download. */
export function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// The rules the document states of a member's values (enum, lengths,
// patterns, bounds, null), checked before a form is sent so that a person
// reads what is wrong beside the field at once, in the server's words. The
// server checks them again and its 400 stays the authority: a rule the
// document cannot state (a length in bytes), or a pattern JavaScript reads
// otherwise than the server, is said by the server's answer instead.

import type { Member } from "./document.js";

/** What the server says of null for a member that takes none. */
export const nullRefused = "is required: it cannot be null";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A pattern as JavaScript reads it; undefined when it cannot (the server still checks it). */
function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
}

/** What is wrong with a value the form would send for m, in the server's words; undefined when nothing is. */
export function refusal(m: Member, v: unknown): string | undefined {
  if (v === null) return m.nullable ? undefined : nullRefused;
  const r = m.rules;
  if (typeof v === "string") {
    if (m.values && !m.values.includes(v)) return `must be one of ${m.values.map((x) => JSON.stringify(x)).join(", ")}`;
    const n = [...v].length;
    if (r.minLength !== undefined && n < r.minLength) return `must be at least ${plural(r.minLength, "character")} long (it has ${n})`;
    if (r.maxLength !== undefined && n > r.maxLength) return `must be at most ${plural(r.maxLength, "character")} long (it has ${n})`;
    for (const p of r.patterns) if (compile(p)?.test(v) === false) return `must match the pattern ${p}`;
  }
  if (typeof v === "number") {
    if (r.minimum !== undefined && v < r.minimum) return `must be at least ${r.minimum}`;
    if (r.maximum !== undefined && v > r.maximum) return `must be at most ${r.maximum}`;
    if (r.exclusiveMinimum !== undefined && v <= r.exclusiveMinimum) return `must be more than ${r.exclusiveMinimum}`;
    if (r.exclusiveMaximum !== undefined && v >= r.exclusiveMaximum) return `must be less than ${r.exclusiveMaximum}`;
  }
  return undefined;
}

/** The rules of m a person should know before typing, in a few words (patterns are said when broken). */
export function ruleHints(m: Member, creating: boolean): string[] {
  const r = m.rules;
  const out: string[] = [];
  if (r.minLength !== undefined && r.maxLength !== undefined) out.push(`${r.minLength} to ${plural(r.maxLength, "character")}`);
  else if (r.minLength !== undefined && r.minLength > 0) out.push(`at least ${plural(r.minLength, "character")}`);
  else if (r.maxLength !== undefined) out.push(`at most ${plural(r.maxLength, "character")}`);
  const low = r.minimum ?? r.exclusiveMinimum;
  const high = r.maximum ?? r.exclusiveMaximum;
  const lowWord = r.minimum !== undefined ? "at least" : "more than";
  const highWord = r.maximum !== undefined ? "at most" : "less than";
  if (low !== undefined && high !== undefined) out.push(r.minimum !== undefined && r.maximum !== undefined ? `${low} to ${high}` : `${lowWord} ${low}, ${highWord} ${high}`);
  else if (low !== undefined) out.push(`${lowWord} ${low}`);
  else if (high !== undefined) out.push(`${highWord} ${high}`);
  if (creating && m.default !== undefined && m.default !== null) out.push(`default ${typeof m.default === "string" ? m.default : JSON.stringify(m.default)}`);
  if (m.writeOnly) out.push("written, never shown");
  return out;
}

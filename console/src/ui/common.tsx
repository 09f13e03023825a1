// Pieces every page uses: problems said plainly, a member's input of its
// type, and a hook that loads something and says how it went.

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Problem } from "../../../clients/typescript/src/runtime.js";
import type { Member } from "../document.js";
import { ruleHints } from "../rules.js";

/** Says what went wrong, in words for a person; a 403 says the token may not. */
export function ProblemBox({ error, children }: { error: unknown; children?: ComponentChildren }) {
  if (!error) return null;
  let text: string;
  let id = "";
  if (error instanceof Problem) {
    id = error.requestId;
    switch (error.status) {
      case 401:
        text = "The API token was refused (401): it may have been revoked or have expired. Sign out and sign in again.";
        break;
      case 403:
        text = `Not allowed (403): this token may not do this.${error.detail ? " " + error.detail : ""}`;
        break;
      case 404:
        text = `Not found (404)${error.detail ? ": " + error.detail : ""}.`;
        break;
      case 412:
        text = "This record was changed by someone else since you opened it (412). Nothing was written.";
        break;
      case 429:
        text = `Too many requests (429); try again${error.retryAfter ? ` in ${error.retryAfter} s` : ""}.`;
        break;
      default:
        text = `${error.status} ${error.title || "Error"}${error.detail ? ": " + error.detail : ""}`;
    }
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  const members = error instanceof Problem ? error.errors : [];
  return (
    <div class="problem" role="alert">
      <p>{text}</p>
      {members.length > 0 && (
        <ul>
          {members.map((e) => (
            <li key={e.member}>
              <code>{e.member}</code>: {e.problem}
            </li>
          ))}
        </ul>
      )}
      {id && <p class="request-id">Request id: {id}</p>}
      {children}
    </div>
  );
}

/** The result of a load: its value, its error, and whether it is under way. */
export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** useLoad runs load when a key changes, and again on reload. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value: T | undefined; error: unknown; loading: boolean }>({ value: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => live && setState({ value, error: null, loading: false }),
      (error: unknown) => live && setState({ value: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...keys, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** The id of the element for a member's input. */
export function fieldId(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** The input type of each kind of member (objects have a textarea). */
export const inputTypes = { integer: "number", number: "number", date: "date", "date-time": "datetime-local", text: "text", boolean: "text", object: "text" } as const;

/** The first option of a member's select: what choosing nothing means. */
function emptyChoice(m: Member, creating: boolean): string | undefined {
  if (creating) {
    if (m.default !== undefined && m.default !== null) return `(default: ${String(m.default)})`;
    return m.required ? "— choose —" : "(empty)";
  }
  return m.nullable ? "(empty)" : undefined;
}

/**
 * One member of a form: its name as the label (marked when a create must
 * give it), an input of its type (a select where the document lists its
 * values), what the document says of it and its rules beside it, and its
 * problem — found before sending, or said by the server — below.
 */
export function Field(props: { prefix: string; m: Member; text: string; onChange: (text: string) => void; error?: string | undefined; disabled?: boolean; creating?: boolean }) {
  const { prefix, m, text, onChange, error, disabled } = props;
  const creating = props.creating === true;
  const id = fieldId(prefix, m.name);
  const errId = id + "-error";
  const hintId = id + "-hint";
  const required = m.required && creating;
  const hint = [m.kind === "date-time" ? "UTC" : "", m.description ?? "", ruleHints(m, creating).join("; ")].filter(Boolean).join(" — ");
  const common = {
    id,
    name: m.name,
    disabled,
    required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": [error ? errId : "", hint ? hintId : ""].filter(Boolean).join(" ") || undefined,
  };
  let input;
  if (m.values || m.kind === "boolean") {
    const values = m.values ?? ["true", "false"];
    const empty = emptyChoice(m, creating);
    input = (
      <select {...common} value={text} onChange={(e) => onChange(e.currentTarget.value)}>
        {(empty !== undefined || text === "") && <option value="">{empty ?? "— choose —"}</option>}
        {text !== "" && !values.includes(text) && <option value={text}>{text}</option>}
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  } else if (m.kind === "object") {
    input = <textarea {...common} rows={4} value={text} onInput={(e) => onChange(e.currentTarget.value)} />;
  } else {
    const type = inputTypes[m.kind];
    const numeric = m.kind === "integer" || m.kind === "number";
    input = (
      <input
        {...common}
        // Preact's types tie some attributes to some types; these are all valid HTML.
        type={type as "text"}
        autoComplete={m.writeOnly ? "off" : undefined}
        step={m.kind === "integer" ? 1 : m.kind === "number" ? "any" : m.kind === "date-time" ? 1 : undefined}
        min={numeric ? (m.rules.minimum ?? m.rules.exclusiveMinimum) : undefined}
        max={numeric ? (m.rules.maximum ?? m.rules.exclusiveMaximum) : undefined}
        value={text}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div class={"field" + (error ? " has-error" : "")}>
      {/* The mark is beside the label, not in it: the label is the member's name alone, and the input's required says the rest. */}
      <span class="field-head">
        <label htmlFor={id}>{m.name}</label>
        {required && (
          <span class="required" aria-hidden="true" title="required">
            *
          </span>
        )}
      </span>
      {input}
      {hint && (
        <small id={hintId} class="hint">
          {hint}
        </small>
      )}
      {error && (
        <p id={errId} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A short status line read out by screen readers. */
export function Status({ text }: { text: string }) {
  return (
    <p class="status" role="status">
      {text}
    </p>
  );
}

/**
 * A button for something that cannot be undone here, asking first in the
 * page (no modal dialog): label, then the question with yes and "Cancel".
 */
export function Confirmed({ label, name, question, yes, onYes }: { label: string; name?: string; question: string; yes: string; onYes: () => Promise<boolean> }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="danger" aria-label={name} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label="Confirm">
      <span>{question}</span>
      <button type="button" class="danger" onClick={() => void onYes().then((done) => done || setAsking(false))}>
        {yes}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

// One record: every member in an input of its type, saved with If-Match
// (a 412 is said as a change by someone else, with a reload, never
// overwritten), problems beside their fields, its children and parent by
// expand (related.tsx), its history with what changed at each version
// (history.tsx), the trash, and the form that creates a record.

import { useEffect, useState } from "preact/hooks";
import { Problem } from "../../../clients/typescript/src/runtime.js";
import type { Session } from "../api.js";
import type { Member, Resource } from "../document.js";
import { go, href } from "../route.js";
import { refusal } from "../rules.js";
import { InputError, cell, fromInput, toInput, unchanged } from "../values.js";
import type { Rec } from "../values.js";
import { Confirmed, Field, ProblemBox, Status, useLoad } from "./common.js";
import { History } from "./history.js";
import { Related } from "./related.js";

/**
 * The members a form shows: on create, those a create may set (and the
 * id); on a record, every member but those written only by a create.
 */
function formMembers(r: Resource, creating: boolean): Member[] {
  return r.members.filter((m) => (creating ? m.creatable || m.name === "id" : !m.writeOnly || m.writable));
}

/** Whether the form sends a member: the id only on create, else what the write may set. */
function sent(m: Member, creating: boolean): boolean {
  if (m.name === "id") return creating;
  return creating ? m.creatable : m.writable && !m.readOnly;
}

/**
 * Reads what the form holds into a body: on create the members typed, on
 * a record those changed. What the typing or the document's rules refuse
 * goes beside its field, and then nothing is sent.
 */
function readForm(members: Member[], texts: Record<string, string>, before: Rec | undefined): { body: Rec; errors: Record<string, string> } {
  const creating = before === undefined;
  const body: Rec = {};
  const errors: Record<string, string> = {};
  for (const m of members) {
    if (!sent(m, creating)) continue;
    const text = texts[m.name] ?? "";
    if (before ? unchanged(m, before[m.name], text) : text.trim() === "") {
      if (creating && m.required) errors[m.name] = "is required";
      continue;
    }
    try {
      const v = fromInput(m, text);
      const refused = refusal(m, v);
      if (refused) errors[m.name] = refused;
      else body[m.name] = v;
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      errors[m.name] = e.message;
    }
  }
  return { body, errors };
}

/** The problems of a 400 that name a member of the form, by member. */
function memberErrors(e: unknown, members: Member[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(e instanceof Problem)) return out;
  for (const x of e.errors) {
    const name = x.member.replace(/^\[\d+\]\./, "");
    if (members.some((m) => m.name === name)) out[name] = out[name] ? `${out[name]}; ${x.problem}` : x.problem;
  }
  return out;
}

function textsOf(members: Member[], rec: Rec | undefined): Record<string, string> {
  return Object.fromEntries(members.map((m) => [m.name, rec ? toInput(m, rec[m.name]) : ""]));
}

export function RecordPage({ session, resource: r, id }: { session: Session; resource: Resource; id: string }) {
  const svc = session.service(r);
  const expand = r.edges.map((e) => e.name);
  const loaded = useLoad<Rec>(() => svc.get(id, expand.length ? { expand } : undefined, r.readTrashed ? { trashed: "include" } : undefined), [r.plural, id]);
  const [rec, setRec] = useState<Rec | undefined>(undefined);
  const members = formMembers(r, false);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState("");
  const [historyTick, setHistoryTick] = useState(0);
  useEffect(() => {
    if (loaded.value) {
      setRec(loaded.value);
      setTexts(textsOf(members, loaded.value));
      setFieldErrors({});
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded.value]);

  const trashed = rec !== undefined && rec["deleted_at"] !== undefined && rec["deleted_at"] !== null;
  const canEdit = r.routes.patch !== undefined && session.can(r.plural, "update") && !trashed;
  const version = rec?.["version"];
  const ifMatch = typeof version === "number" ? `"${version}"` : undefined;

  const reload = () => {
    setError(null);
    setNote("");
    loaded.reload();
    setHistoryTick((t) => t + 1);
  };
  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    setError(null);
    setNote("");
    const { body, errors } = readForm(members, texts, rec);
    setFieldErrors(errors);
    if (Object.keys(errors).length) return;
    if (Object.keys(body).length === 0) {
      setNote("Nothing changed.");
      return;
    }
    try {
      const saved = await svc.patch(id, body, ifMatch ? { ifMatch } : undefined);
      const merged = { ...saved, expand: rec?.["expand"] };
      setRec(merged);
      setTexts(textsOf(members, merged));
      setNote(`Saved: version ${String(saved["version"])}.`);
      setHistoryTick((t) => t + 1);
    } catch (x) {
      setFieldErrors(memberErrors(x, members));
      setError(x);
    }
  };
  const trash = async () => {
    setError(null);
    try {
      await svc.delete(id, undefined, ifMatch ? { ifMatch } : undefined);
      go({ page: "list", plural: r.plural, query: "" });
      return true;
    } catch (x) {
      setError(x);
      return false;
    }
  };
  const restore = async () => {
    setError(null);
    try {
      const back = await svc.restore(id);
      setNote(`Restored: version ${String(back["version"])}.`);
      reload();
    } catch (x) {
      setError(x);
    }
  };

  if (loaded.error && !rec) return <ProblemBox error={loaded.error} />;
  if (!rec) return <Status text="Loading…" />;
  const conflict = error instanceof Problem && error.status === 412;
  return (
    <section aria-labelledby="record-title">
      <p class="crumbs">
        <a href={href({ page: "list", plural: r.plural, query: "" })}>{r.plural}</a>
      </p>
      <h2 id="record-title" tabIndex={-1}>
        {r.plural} / {id}
      </h2>
      <p class="meta">Version {String(version ?? "")}{trashed ? " · in the trash" : ""}</p>
      {trashed && (
        <div class="notice">
          <p>This record is in the trash.</p>
          {r.routes.restore && session.can(r.plural, "restore") && (
            <button type="button" onClick={restore}>
              Restore
            </button>
          )}
        </div>
      )}
      <ProblemBox error={error}>
        {conflict && (
          <button type="button" onClick={reload}>
            Reload
          </button>
        )}
      </ProblemBox>
      {note && <Status text={note} />}
      <form class="record-form" onSubmit={save} aria-label={`Edit ${id}`} noValidate>
        <div class="fields">
          {members.map((m) =>
            !sent(m, false) ? (
              <div class="field" key={m.name}>
                <span class="label" id={`ro-${m.name}`}>
                  {m.name}
                </span>
                <output aria-labelledby={`ro-${m.name}`}>{cell(rec[m.name])}</output>
              </div>
            ) : (
              <Field
                key={m.name}
                prefix="edit"
                m={m}
                text={texts[m.name] ?? ""}
                disabled={!canEdit}
                error={fieldErrors[m.name]}
                onChange={(t) => setTexts((s) => ({ ...s, [m.name]: t }))}
              />
            ),
          )}
        </div>
        <div class="toolbar">
          {canEdit && <button type="submit">Save</button>}
          {r.routes.delete && session.can(r.plural, "delete") && !trashed && (
            <Confirmed label="Move to trash" question={`Move this record${r.edges.some((e) => e.many) ? " and its children" : ""} to the trash?`} yes="Yes, move to trash" onYes={trash} />
          )}
        </div>
      </form>
      <Related session={session} resource={r} rec={rec} />
      {r.routes.history && <History key={historyTick} session={session} resource={r} id={id} current={typeof version === "number" ? version : 0} canRevert={canEdit && r.routes.revert !== undefined} onReverted={reload} />}
    </section>
  );
}

export function CreatePage({ session, resource: r }: { session: Session; resource: Resource }) {
  const svc = session.service(r);
  const members = formMembers(r, true);
  const [texts, setTexts] = useState<Record<string, string>>(() => textsOf(members, undefined));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    setError(null);
    const { body, errors } = readForm(members, texts, undefined);
    setFieldErrors(errors);
    if (Object.keys(errors).length) return;
    setBusy(true);
    try {
      const made = await svc.create(body);
      go({ page: "record", plural: r.plural, id: String(made["id"]) });
    } catch (x) {
      setFieldErrors(memberErrors(x, members));
      setError(x);
    }
    setBusy(false);
  };
  return (
    <section aria-labelledby="create-title">
      <p class="crumbs">
        <a href={href({ page: "list", plural: r.plural, query: "" })}>{r.plural}</a>
      </p>
      <h2 id="create-title" tabIndex={-1}>
        New {r.plural} record
      </h2>
      <ProblemBox error={error} />
      <form class="record-form" onSubmit={create} aria-label={`New ${r.plural} record`} noValidate>
        <div class="fields">
          {members.map((m) => (
            <Field key={m.name} prefix="new" m={m} creating text={texts[m.name] ?? ""} error={fieldErrors[m.name]} onChange={(t) => setTexts((s) => ({ ...s, [m.name]: t }))} />
          ))}
        </div>
        <div class="toolbar">
          <button type="submit" disabled={busy}>
            Create
          </button>
          <a href={href({ page: "list", plural: r.plural, query: "" })}>Cancel</a>
        </div>
      </form>
    </section>
  );
}

// A record's history: its versions, newest first, each with what changed
// from the one before, and a revert to any earlier one.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Event } from "../../../clients/typescript/src/runtime.js";
import type { Session } from "../api.js";
import type { Resource } from "../document.js";
import { cell, diff } from "../values.js";
import { Confirmed, ProblemBox, Status } from "./common.js";

/** The record's versions, newest first, each with what changed from the one before. */
export function History(props: { session: Session; resource: Resource; id: string; current: number; canRevert: boolean; onReverted: () => void }) {
  const { session, resource: r, id, current } = props;
  const svc = session.service(r);
  const [events, setEvents] = useState<Event[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const more = useRef<(c?: string) => Promise<void>>(async () => undefined);
  more.current = async (c?: string) => {
    setLoading(true);
    try {
      const page = await svc.history(id, c ? { cursor: c, limit: 100 } : { limit: 100 });
      setEvents((prev) => (c ? [...prev, ...page.events] : page.events));
      setCursor(page.paging.has_more ? page.paging.next_cursor : null);
    } catch (e) {
      setError(e);
    }
    setLoading(false);
  };
  useEffect(() => {
    void more.current();
  }, [id]);
  const revert = async (version: number) => {
    setError(null);
    try {
      await svc.revert(id, version, { ifMatch: `"${current}"` });
      props.onReverted();
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  const rows = events.map((e, i) => {
    const after = e.data.object;
    const deleted = e.type.endsWith(".deleted") || e.type.endsWith(".purged");
    const before = events.slice(0, i).reverse().find((x) => !x.type.endsWith(".deleted"))?.data.object;
    return { e, after, deleted, changes: deleted ? [] : diff(before, after) };
  });
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">History</h3>
      <ProblemBox error={error} />
      <ol class="history" reversed>
        {rows
          .slice()
          .reverse()
          .map(({ e, after, deleted, changes }) => {
            const v = typeof after["version"] === "number" ? after["version"] : undefined;
            return (
              <li key={e.id}>
                <p class="event-head">
                  <strong>{deleted ? e.type.split(".").pop() : v !== undefined ? `Version ${v}` : e.type}</strong> · {e.type} · <time dateTime={e.occurred_at}>{e.occurred_at}</time>
                  {e.actor?.token_name ? ` · by ${e.actor.token_name}` : ""}
                  {e.reverted_from !== undefined ? ` · reverted from version ${e.reverted_from}` : ""}
                </p>
                {changes.length > 0 && (
                  <table class="diff">
                    <caption class="visually-hidden">Changes in {v !== undefined ? `version ${v}` : e.type}</caption>
                    <thead>
                      <tr>
                        <th scope="col">member</th>
                        <th scope="col">before</th>
                        <th scope="col">after</th>
                      </tr>
                    </thead>
                    <tbody>
                      {changes.map((c) => (
                        <tr key={c.member}>
                          <th scope="row">{c.member}</th>
                          <td class="before">{cell(c.before)}</td>
                          <td class="after">{cell(c.after)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {props.canRevert && !deleted && v !== undefined && v < current && (
                  <Confirmed
                    label="Revert to this version"
                    name={`Revert to this version (version ${v})`}
                    question={`Write version ${v}'s members as a new version?`}
                    yes="Yes, revert"
                    onYes={() => revert(v)}
                  />
                )}
              </li>
            );
          })}
      </ol>
      {loading && <Status text="Loading history…" />}
      {cursor && (
        <button type="button" onClick={() => void more.current(cursor)}>
          More history
        </button>
      )}
    </section>
  );
}

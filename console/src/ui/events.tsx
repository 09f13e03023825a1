// The live events: the event stream read by fetch (the token is a header,
// which EventSource cannot send), newest first; after a broken connection
// it reconnects with Last-Event-ID, so nothing committed meanwhile is lost.

import { useEffect, useState } from "preact/hooks";
import { Problem } from "../../../clients/typescript/src/runtime.js";
import type { StreamedEvent } from "../../../clients/typescript/src/runtime.js";
import type { Session } from "../api.js";
import { href } from "../route.js";
import { ProblemBox } from "./common.js";

type State = "connecting" | "live" | "reconnecting" | "stopped";

const stateText: Record<State, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Connection lost; reconnecting…",
  stopped: "Stopped",
};

/** The most events kept on the page. */
const keep = 500;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

export function EventsPage({ session }: { session: Session }) {
  const [events, setEvents] = useState<StreamedEvent[]>([]);
  const [state, setState] = useState<State>("connecting");
  const [error, setError] = useState<unknown>(null);
  const [reconnects, setReconnects] = useState(0);
  useEffect(() => {
    const stop = new AbortController();
    const run = async () => {
      let cursor = "";
      let failures = 0;
      while (!stop.signal.aborted) {
        try {
          const headers: Record<string, string> = cursor ? { "Last-Event-ID": cursor } : {};
          const stream = session.events.stream(undefined, {
            signal: stop.signal,
            headers,
            onResponse: (res) => {
              if (res.ok) {
                failures = 0;
                setError(null);
                setState("live");
              }
            },
          });
          for await (const e of stream) {
            cursor = e.cursor;
            setEvents((prev) => [e, ...prev].slice(0, keep));
          }
        } catch (e) {
          if (stop.signal.aborted) return;
          // A refused token or role will not be accepted on a retry.
          if (e instanceof Problem && (e.status === 401 || e.status === 403)) {
            setError(e);
            setState("stopped");
            return;
          }
        }
        if (stop.signal.aborted) return;
        setState("reconnecting");
        setReconnects((n) => n + 1);
        await sleep(Math.min(250 * 2 ** failures, 10_000), stop.signal);
        failures++;
      }
    };
    void run();
    return () => stop.abort();
  }, [session]);
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title" tabIndex={-1}>
        Live events
      </h2>
      <p class={"stream-state " + state} role="status">
        {stateText[state]}
        {reconnects > 0 && state === "live" ? ` (reconnected ${reconnects === 1 ? "once" : `${reconnects} times`})` : ""}
      </p>
      <ProblemBox error={error} />
      {events.length === 0 ? (
        <p class="empty">No events since this page opened. Changes appear here as they are committed.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Events">
          <table>
            <thead>
              <tr>
                <th scope="col">time</th>
                <th scope="col">type</th>
                <th scope="col">record</th>
                <th scope="col">by</th>
              </tr>
            </thead>
            <tbody aria-live="polite">
              {events.map(({ event: e }) => {
                const plural = e.type.split(".")[0] ?? "";
                const id = String(e.data.object["id"] ?? "");
                const r = session.catalog.byPlural.get(plural);
                return (
                  <tr key={e.id}>
                    <td>
                      <time dateTime={e.occurred_at}>{e.occurred_at}</time>
                    </td>
                    <td>{e.type}</td>
                    <td>{r && id && !e.type.endsWith(".deleted") ? <a href={href({ page: "record", plural, id })}>{id}</a> : id}</td>
                    <td>{e.actor?.token_name ?? ""}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

// Webhooks: the team's endpoints, a form that makes one (its secret shown
// once), and a webhook's page with its deliveries and "Send test".

import { useState } from "preact/hooks";
import type { DeliveryPage, Webhook, WebhookCreated, WebhookPage } from "../../../clients/typescript/src/runtime.js";
import type { Session } from "../api.js";
import { go, href } from "../route.js";
import { Confirmed, ProblemBox, Status, useLoad } from "./common.js";

export function WebhooksPage({ session }: { session: Session }) {
  const list = useLoad<WebhookPage>(() => session.webhooks.list({ limit: 100 }), [session]);
  const [url, setUrl] = useState("");
  const [types, setTypes] = useState("*");
  const [description, setDescription] = useState("");
  const [made, setMade] = useState<WebhookCreated | null>(null);
  const [error, setError] = useState<unknown>(null);
  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const events = types
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      setMade(await session.webhooks.create({ url: url.trim(), events, description: description.trim() || null }));
      setUrl("");
      list.reload();
    } catch (x) {
      setError(x);
    }
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title" tabIndex={-1}>
        Webhooks
      </h2>
      <ProblemBox error={list.error} />
      {list.value && list.value.webhooks.length === 0 && <p class="empty">No webhooks.</p>}
      {list.value && list.value.webhooks.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Webhooks">
          <table>
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">url</th>
                <th scope="col">events</th>
                <th scope="col">enabled</th>
                <th scope="col">description</th>
              </tr>
            </thead>
            <tbody>
              {list.value.webhooks.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a href={href({ page: "webhook", id: w.id })}>{w.id}</a>
                  </td>
                  <td>{w.url}</td>
                  <td>{w.events.join(", ")}</td>
                  <td>{w.enabled ? "yes" : "no"}</td>
                  <td>{w.description ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>New webhook</h3>
      {made && (
        <div class="notice" role="status">
          <p>
            Webhook <a href={href({ page: "webhook", id: made.id })}>{made.id}</a> made. Its signing secret, shown only now:
          </p>
          <p>
            <code class="secret">{made.secret}</code>
          </p>
        </div>
      )}
      <ProblemBox error={error} />
      <form class="record-form" onSubmit={create} aria-label="New webhook">
        <div class="fields">
          <div class="field">
            <label htmlFor="wh-url">url</label>
            <input id="wh-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label htmlFor="wh-events">events</label>
            <input id="wh-events" type="text" required value={types} aria-describedby="wh-events-hint" onInput={(e) => setTypes(e.currentTarget.value)} />
            <small id="wh-events-hint" class="hint">
              Event types separated by commas, e.g. returns.created; * is every type.
            </small>
          </div>
          <div class="field">
            <label htmlFor="wh-description">description</label>
            <input id="wh-description" type="text" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </div>
        </div>
        <div class="toolbar">
          <button type="submit">Create webhook</button>
        </div>
      </form>
    </section>
  );
}

export function WebhookPage({ session, id }: { session: Session; id: string }) {
  const hook = useLoad<Webhook>(() => session.webhooks.get(id), [id]);
  const deliveries = useLoad<DeliveryPage>(() => session.webhooks.deliveries(id, { limit: 100 }), [id]);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState("");
  const test = async () => {
    setError(null);
    try {
      const d = await session.webhooks.test(id);
      setNote(`Test queued: delivery ${d.id}.`);
      deliveries.reload();
    } catch (x) {
      setError(x);
    }
  };
  const toggle = async (w: Webhook) => {
    setError(null);
    try {
      await session.webhooks.update(id, { enabled: !w.enabled }, { ifMatch: `"${w.version}"` });
      hook.reload();
    } catch (x) {
      setError(x);
    }
  };
  const remove = async () => {
    try {
      await session.webhooks.delete(id);
      go({ page: "webhooks" });
      return true;
    } catch (x) {
      setError(x);
      return false;
    }
  };
  const w = hook.value;
  return (
    <section aria-labelledby="webhook-title">
      <p class="crumbs">
        <a href={href({ page: "webhooks" })}>Webhooks</a>
      </p>
      <h2 id="webhook-title" tabIndex={-1}>
        Webhook {id}
      </h2>
      <ProblemBox error={hook.error} />
      <ProblemBox error={error} />
      {note && <Status text={note} />}
      {w && (
        <dl class="props">
          <dt>url</dt>
          <dd>{w.url}</dd>
          <dt>events</dt>
          <dd>{w.events.join(", ")}</dd>
          <dt>enabled</dt>
          <dd>{w.enabled ? "yes" : `no${w.disabled_at ? ` (since ${w.disabled_at})` : ""}`}</dd>
          <dt>description</dt>
          <dd>{w.description ?? ""}</dd>
          <dt>created</dt>
          <dd>{w.created_at}</dd>
        </dl>
      )}
      {w && (
        <div class="toolbar">
          <button type="button" onClick={test}>
            Send test
          </button>
          <button type="button" onClick={() => toggle(w)}>
            {w.enabled ? "Disable" : "Enable"}
          </button>
          <Confirmed label="Delete webhook" question="Delete this webhook?" yes="Yes, delete" onYes={remove} />
        </div>
      )}
      <h3>Deliveries</h3>
      <button type="button" onClick={deliveries.reload}>
        Refresh deliveries
      </button>
      <ProblemBox error={deliveries.error} />
      {deliveries.value && deliveries.value.deliveries.length === 0 && <p class="empty">No deliveries yet.</p>}
      {deliveries.value && deliveries.value.deliveries.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries">
          <table>
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">event</th>
                <th scope="col">attempt</th>
                <th scope="col">status</th>
                <th scope="col">code</th>
                <th scope="col">error</th>
                <th scope="col">next attempt</th>
                <th scope="col">delivered</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.value.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{d.id}</td>
                  <td>{d.event_id}</td>
                  <td>{d.attempt}</td>
                  <td>{d.status}</td>
                  <td>{d.status_code ?? ""}</td>
                  <td>{d.error ?? ""}</td>
                  <td>{d.next_attempt_at ?? ""}</td>
                  <td>{d.delivered_at ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

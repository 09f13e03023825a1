// The console's shell: sign-in, the navigation by plural, and the page the
// address names. The catalog comes from the OpenAPI document; the session
// from the token the person gives, kept in the tab's session storage.

import { useEffect, useRef, useState } from "preact/hooks";
import { Problem } from "../../../clients/typescript/src/runtime.js";
import { loadDocument, saveToken, savedToken, signIn } from "../api.js";
import type { Session } from "../api.js";
import type { Catalog } from "../document.js";
import { href, parseRoute } from "../route.js";
import type { Route } from "../route.js";
import { ProblemBox, Status } from "./common.js";
import { EventsPage } from "./events.js";
import { ListPage } from "./list.js";
import { CreatePage, RecordPage } from "./record.js";
import { WebhookPage, WebhooksPage } from "./webhooks.js";

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () =>
      setRoute((was) => {
        const now = parseRoute(location.hash);
        return href(now) === href(was) ? was : now;
      });
    addEventListener("hashchange", on);
    // The address may have changed between the first render and now,
    // before anything listened: read it once more.
    on();
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}

export function App() {
  const [cat, setCat] = useState<Catalog | null>(null);
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [resuming, setResuming] = useState(savedToken() !== null);
  useEffect(() => {
    loadDocument().then(async (c) => {
      setCat(c);
      const token = savedToken();
      if (token) {
        try {
          setSession(await signIn(token, c));
        } catch (e) {
          if (e instanceof Problem && e.status === 401) saveToken(null);
          setError(e);
        }
      }
      setResuming(false);
    }, setError);
  }, []);
  if (!cat || resuming) {
    return (
      <main id="main" class="centered">
        <ProblemBox error={error} />
        {!error && <Status text="Loading the API's description…" />}
      </main>
    );
  }
  if (!session) {
    return (
      <SignIn
        catalog={cat}
        error={error}
        onSession={(s) => {
          saveToken(s.token);
          setError(null);
          setSession(s);
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      onSignOut={() => {
        saveToken(null);
        setSession(null);
      }}
    />
  );
}

function SignIn({ catalog, error, onSession }: { catalog: Catalog; error: unknown; onSession: (s: Session) => void }) {
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<unknown>(error);
  const [busy, setBusy] = useState(false);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      onSession(await signIn(token.trim(), catalog));
    } catch (x) {
      setProblem(x);
      setBusy(false);
    }
  };
  return (
    <main id="main" class="centered">
      <form class="signin" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">{catalog.title} console</h1>
        <p>Sign in with an API token (<code>records token create</code> makes one). It is kept in this tab only.</p>
        <label htmlFor="token">API token</label>
        <input id="token" type="password" autoComplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <button type="submit" disabled={busy || token.trim() === ""}>
          Sign in
        </button>
        <ProblemBox error={problem} />
      </form>
    </main>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const cat = session.catalog;
  const readable = cat.resources.filter((r) => session.can(r.plural, "read"));
  // A new page moves the focus to its heading, as a page load would.
  useEffect(() => {
    const h = main.current?.querySelector<HTMLElement>("h2");
    if (document.activeElement === document.body || document.activeElement?.closest("nav")) h?.focus();
  }, [route.page, "plural" in route ? route.plural : "", "id" in route ? route.id : ""]);
  const current = "plural" in route ? route.plural : route.page;
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <h1>
          <a href={href({ page: "home" })}>{cat.title} console</a>
        </h1>
        <span class="who">
          {session.me ? [session.me.subject, session.me.role, session.me.scope].filter(Boolean).join(" · ") : ""}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Resources">
        <ul>
          {readable.map((r) => (
            <li key={r.plural}>
              <a href={href({ page: "list", plural: r.plural, query: "" })} aria-current={current === r.plural ? "page" : undefined}>
                {r.plural}
              </a>
            </li>
          ))}
        </ul>
        {(cat.stream || cat.webhooks) && session.canEvents() && (
          <ul class="service">
            {cat.stream && (
              <li>
                <a href={href({ page: "events" })} aria-current={current === "events" ? "page" : undefined}>
                  Live events
                </a>
              </li>
            )}
            {cat.webhooks && (
              <li>
                <a href={href({ page: "webhooks" })} aria-current={current === "webhooks" || current === "webhook" ? "page" : undefined}>
                  Webhooks
                </a>
              </li>
            )}
          </ul>
        )}
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <Page session={session} route={route} />
      </main>
    </div>
  );
}

function Page({ session, route }: { session: Session; route: Route }) {
  const cat = session.catalog;
  switch (route.page) {
    case "home":
      return (
        <section aria-labelledby="home-title">
          <h2 id="home-title" tabIndex={-1}>
            Resources
          </h2>
          <ul class="cards">
            {cat.resources
              .filter((r) => session.can(r.plural, "read"))
              .map((r) => (
                <li key={r.plural}>
                  <a href={href({ page: "list", plural: r.plural, query: "" })}>{r.plural}</a>
                  <span>{r.members.length} members</span>
                </li>
              ))}
          </ul>
        </section>
      );
    case "events":
      return <EventsPage session={session} />;
    case "webhooks":
      return <WebhooksPage session={session} />;
    case "webhook":
      return <WebhookPage session={session} id={route.id} />;
  }
  const r = cat.byPlural.get(route.plural);
  if (!r) return <ProblemBox error={new Error(`The API has no resource ${route.plural}.`)} />;
  switch (route.page) {
    case "list":
      return <ListPage key={r.plural} session={session} resource={r} query={route.query} />;
    case "new":
      return <CreatePage key={r.plural} session={session} resource={r} />;
    case "record":
      return <RecordPage key={r.plural + "/" + route.id} session={session} resource={r} id={route.id} />;
  }
}

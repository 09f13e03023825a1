// The console's connection to the API: every call goes through the
// generated client's runtime (Transport, ResourceService, EventService,
// WebhookService), which is independent of the schema, so the bundle does
// not change when a resource is added. The token lives in the tab's
// session storage and travels as an Authorization header; the console sets
// no cookie.

import { EventService, Problem, ResourceService, Transport, WebhookService } from "../../clients/typescript/src/runtime.js";
import { catalog } from "./document.js";
import type { Catalog, OpenAPIDocument, Resource } from "./document.js";

const tokenKey = "records.console.token";

/** The API's base URL: the page's address without /console. */
export function apiBase(): string {
  return location.origin + location.pathname.replace(/\/console\/?$/, "");
}

export function savedToken(): string | null {
  return sessionStorage.getItem(tokenKey);
}

export function saveToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(tokenKey);
  else sessionStorage.setItem(tokenKey, token);
}

/** What GET /v1/me says the caller may do (DESIGN §15). */
export interface Me {
  subject?: string;
  team?: string | number;
  role?: string;
  roles?: string[];
  via?: string;
  scope?: string;
  can?: Record<string, string[]>;
}

/** The calls the console may offer on a resource. */
export type Ability = "read" | "create" | "update" | "delete" | "restore";

/** A signed-in session: the document's catalog, the services, and what the caller may do. */
export class Session {
  readonly token: string;
  readonly catalog: Catalog;
  readonly me: Me | null;
  readonly events: EventService;
  readonly webhooks: WebhookService;
  readonly #transport: Transport;
  readonly #services = new Map<string, ResourceService>();

  constructor(token: string, transport: Transport, cat: Catalog, me: Me | null) {
    this.token = token;
    this.catalog = cat;
    this.me = me;
    this.#transport = transport;
    this.events = new EventService(transport);
    this.webhooks = new WebhookService(transport);
  }

  /** The generic service of a resource, its routes as the document declares them. */
  service(r: Resource): ResourceService {
    let s = this.#services.get(r.plural);
    if (!s) {
      s = new ResourceService(this.#transport, r.plural, r.routes);
      this.#services.set(r.plural, s);
    }
    return s;
  }

  /**
   * Whether to offer an ability: what GET /v1/me's can says when the
   * server has that route; otherwise everything, a read-scoped token's
   * writes then answered 403 and shown as such.
   */
  can(plural: string, ability: Ability): boolean {
    if (!this.me) return true;
    if (this.me.scope === "read" && ability !== "read") return false;
    const can = this.me.can;
    if (!can) return true;
    const granted = can[plural] ?? can["*"] ?? [];
    return granted.includes(ability);
  }

  /** Whether the event log and webhooks are offered: GET /v1/me's role must be admin when it says. */
  canEvents(): boolean {
    return !this.me?.role || this.me.role === "admin";
  }
}

/** The document, read through the client's transport (it needs no token). */
export async function loadDocument(): Promise<Catalog> {
  const t = new Transport({ baseURL: apiBase() });
  const cat = catalog(await t.send<OpenAPIDocument>({ method: "GET", path: "/v1/openapi.json" }));
  // What the browser tests read: when the document was read and its catalog built.
  performance.mark("records:document-ready");
  return cat;
}

/**
 * signIn checks the token and answers a session: GET /v1/me where the
 * server has it, else a one-record page of the first resource (a 401 says
 * the token is refused; a 403 that it may not read there, which is no
 * reason to refuse the sign-in).
 */
export async function signIn(token: string, cat: Catalog): Promise<Session> {
  const t = new Transport({ baseURL: apiBase(), token });
  let me: Me | null = null;
  if (cat.me) {
    me = await t.send<Me>({ method: "GET", path: "/v1/me" });
  } else {
    const first = cat.resources.find((r) => r.routes.list);
    if (first) {
      try {
        await new ResourceService(t, first.plural, first.routes).list({ limit: 1, fields: ["id"] });
      } catch (e) {
        if (!(e instanceof Problem) || e.status !== 403) throw e;
      }
    }
  }
  return new Session(token, t, cat, me);
}

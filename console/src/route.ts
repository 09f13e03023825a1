// The console's pages, addressed by the location's hash, so that the
// server serves one page and every link works with the keyboard, the
// history and bookmarks.

export type Route =
  | { page: "home" }
  | { page: "list"; plural: string; query: string }
  | { page: "new"; plural: string }
  | { page: "record"; plural: string; id: string }
  | { page: "events" }
  | { page: "webhooks" }
  | { page: "webhook"; id: string };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [path = "", query = ""] = raw.split(/\?(.*)/s);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case "events":
      return { page: "events" };
    case "webhooks":
      return parts[1] ? { page: "webhook", id: parts[1] } : { page: "webhooks" };
    case "new":
      if (parts[1]) return { page: "new", plural: parts[1] };
      break;
    case "r":
      if (!parts[1]) break;
      if (parts[2] === undefined) return { page: "list", plural: parts[1], query };
      return { page: "record", plural: parts[1], id: parts.slice(2).join("/") };
  }
  return { page: "home" };
}

export function href(r: Route): string {
  switch (r.page) {
    case "home":
      return "#/";
    case "list":
      return `#/r/${encodeURIComponent(r.plural)}${r.query ? "?" + r.query : ""}`;
    case "new":
      return `#/new/${encodeURIComponent(r.plural)}`;
    case "record":
      return `#/r/${encodeURIComponent(r.plural)}/${encodeURIComponent(r.id)}`;
    case "events":
      return "#/events";
    case "webhooks":
      return "#/webhooks";
    case "webhook":
      return `#/webhooks/${encodeURIComponent(r.id)}`;
  }
}

export function go(r: Route): void {
  location.hash = href(r);
}

// What the console knows of the API, read from its OpenAPI document at run
// time: the resources by plural, each member's type, the routes of each
// call and where their answers hold the record. Nothing here names a
// resource, so a resource added by a spec edit appears with no change to
// the console; features the server gains later (search, trash, revert,
// GET /v1/me) light up when their routes or parameters appear.

import type { ResourceRoute, ResourceRoutes } from "../../clients/typescript/src/runtime.js";

/** A JSON Schema as the document writes it; only what the console reads is typed. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  required?: string[];
  readOnly?: boolean;
  writeOnly?: boolean;
  description?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}

interface MediaType {
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/** The parts of an OpenAPI 3.1 document the console reads. */
export interface OpenAPIDocument {
  info?: { title?: string; version?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** How a member is shown, edited and filtered. */
export type Kind = "text" | "integer" | "number" | "boolean" | "date" | "date-time" | "object";

/** The operators of a filter (docs/api.md, Filters). */
export const operators = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "prefix", "is_null"] as const;
export type Operator = (typeof operators)[number];

/** A member of a resource's records. */
export interface Member {
  name: string;
  kind: Kind;
  /** The server writes it (id, version, team_id…); never sent. */
  readOnly: boolean;
  /** A write may set it. */
  writable: boolean;
  /** A create must give it (the document's required). */
  required: boolean;
  /** The values it takes, when the document lists them. */
  values?: string[];
  description?: string;
  /** The filter operators the list declares for it. */
  ops: Operator[];
  /** The list may be ordered by it. */
  sortable: boolean;
  min?: number;
  max?: number;
  maxLength?: number;
}

/** A related record set: children (many) or a parent. */
export interface Edge {
  name: string;
  many: boolean;
  /** The related resource's schema name; its plural is found through the catalog. */
  schema: string;
}

/** A resource as the console shows it. */
export interface Resource {
  plural: string;
  schema: string;
  members: Member[];
  edges: Edge[];
  routes: ResourceRoutes;
  /** The list takes q (full-text search). */
  search: boolean;
  /** The list takes trashed (the trash view). */
  trash: boolean;
  /** The single read takes trashed=include. */
  readTrashed: boolean;
}

/** Everything the console offers, as the document declares it. */
export interface Catalog {
  title: string;
  resources: Resource[];
  byPlural: Map<string, Resource>;
  bySchema: Map<string, Resource>;
  /** GET /v1/me exists. */
  me: boolean;
  events: boolean;
  stream: boolean;
  webhooks: boolean;
}

const refPrefix = "#/components/schemas/";

/** The catalog of what the document declares. */
export function catalog(doc: OpenAPIDocument): Catalog {
  const schemas = doc.components?.schemas ?? {};
  const deref = (s: Schema | undefined): Schema | undefined => {
    for (let i = 0; s?.$ref && i < 16; i++) s = schemas[s.$ref.slice(refPrefix.length)];
    return s;
  };
  const op = (method: string, path: string): Operation | undefined => {
    const o = doc.paths[path]?.[method];
    return o && !o.deprecated ? o : undefined;
  };
  const resources: Resource[] = [];
  for (const path of Object.keys(doc.paths).sort()) {
    const m = /^\/v1\/([^/{}]+)\/\{id\}\/history$/.exec(path);
    const plural = m?.[1];
    const history = op("get", path);
    if (!plural || !history) continue;
    const found = recordSchema(doc, plural, history, schemas);
    if (found) resources.push(resource(doc, plural, found, op, deref, schemas));
  }
  const bySchema = new Map(resources.map((r) => [r.schema, r]));
  return {
    title: doc.info?.title ?? "Records",
    resources,
    byPlural: new Map(resources.map((r) => [r.plural, r])),
    bySchema,
    me: op("get", "/v1/me") !== undefined,
    events: op("get", "/v1/events") !== undefined,
    stream: op("get", "/v1/events/stream") !== undefined,
    webhooks: op("get", "/v1/webhooks") !== undefined,
  };
}

/** The record schema's name: the history's tag, or what the patch answers. */
function recordSchema(doc: OpenAPIDocument, plural: string, history: Operation, schemas: Record<string, Schema>): string | undefined {
  const tag = history.tags?.[0];
  if (tag && schemas[tag]?.properties) return tag;
  const ref = success(doc.paths[`/v1/${plural}/{id}`]?.["patch"])?.$ref;
  return ref?.slice(refPrefix.length);
}

/** The JSON schema of an operation's success answer. */
function success(o: Operation | undefined): Schema | undefined {
  for (const status of ["200", "201"]) {
    const s = o?.responses?.[status]?.content?.["application/json"]?.schema;
    if (s) return s;
  }
  return undefined;
}

/**
 * where finds the record (or, with many, the array of records) of schema
 * name in an answer's schema: the members and indexes leading to it.
 */
export function where(s: Schema | undefined, name: string, many: boolean, deref: (s: Schema | undefined) => Schema | undefined, depth = 0): (string | number)[] | undefined {
  if (!s || depth > 6) return undefined;
  const isRecord = (x: Schema | undefined): boolean => x?.$ref === refPrefix + name || (x?.anyOf ?? x?.oneOf ?? []).some((y) => y.$ref === refPrefix + name);
  if (!many && isRecord(s)) return [];
  if (s.type === "array" && isRecord(s.items)) return many ? [] : [0];
  for (const alt of [...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
    const at = where(alt, name, many, deref, depth + 1);
    if (at) return at;
  }
  const d = deref(s);
  if (d !== s && d && !isRecord(s)) return where(d, name, many, deref, depth + 1);
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (k === "paging" || k === "expand") continue;
    const at = where(v, name, many, deref, depth + 1);
    if (at) return [k, ...at];
  }
  return undefined;
}

function resource(
  doc: OpenAPIDocument,
  plural: string,
  schema: string,
  op: (method: string, path: string) => Operation | undefined,
  deref: (s: Schema | undefined) => Schema | undefined,
  schemas: Record<string, Schema>,
): Resource {
  const one = `/v1/${plural}/{id}`;
  const route = (method: string, path: string, many = false): ResourceRoute | undefined => {
    const at = where(success(op(method, path)), schema, many, deref);
    return at ? { path: path.replace("{id}", ":id"), at } : undefined;
  };
  const routes: ResourceRoutes = {};
  // The list: /v1/<plural> if it answers a page of records, else the
  // shortest route without an id that does (an operation of the contract
  // may hold the generic path, as GET /v1/cases does).
  const lists = Object.keys(doc.paths)
    .filter((p) => !p.includes("{") && p.startsWith("/v1/") && op("get", p) && success(op("get", p))?.properties?.["paging"] !== undefined)
    .sort((a, b) => Number(b === `/v1/${plural}`) - Number(a === `/v1/${plural}`) || a.length - b.length || (a < b ? -1 : 1));
  for (const p of lists) {
    const r = route("get", p, true);
    if (r) {
      routes.list = r;
      break;
    }
  }
  const set = (call: keyof ResourceRoutes, r: ResourceRoute | undefined): void => {
    if (r) routes[call] = r;
  };
  set("get", route("get", one));
  set("create", route("post", `/v1/${plural}`));
  set("patch", route("patch", one));
  if (op("delete", one)) routes.delete = { path: `/v1/${plural}/:id`, at: [] };
  if (op("get", `${one}/history`)) routes.history = { path: `/v1/${plural}/:id/history`, at: [] };
  set("restore", route("post", `${one}/restore`));
  set("revert", route("post", `${one}/revert`));
  const listOp = routes.list ? op("get", routes.list.path) : undefined;
  const listParams = new Set((listOp?.parameters ?? []).map((p) => p.name));
  const readParams = new Set((op("get", one)?.parameters ?? []).map((p) => p.name));
  const record = schemas[schema] ?? {};
  return {
    plural,
    schema,
    members: members(record, writeSchema(op("patch", one), deref), writeSchema(op("post", `/v1/${plural}`), deref), listOp, deref),
    edges: edges(record, deref),
    routes,
    search: listParams.has("q"),
    trash: listParams.has("trashed"),
    readTrashed: readParams.has("trashed"),
  };
}

/** The object schema a write takes (the single record of a body that may also be an array). */
function writeSchema(o: Operation | undefined, deref: (s: Schema | undefined) => Schema | undefined): Schema | undefined {
  const body = o?.requestBody?.content?.["application/json"]?.schema;
  const single = body?.oneOf?.find((s) => deref(s)?.type !== "array") ?? body;
  return deref(single);
}

/** The properties and required names of an object schema, through allOf and $ref. */
function flatten(s: Schema | undefined, deref: (s: Schema | undefined) => Schema | undefined): { props: Record<string, Schema>; required: Set<string> } {
  const props: Record<string, Schema> = {};
  const required = new Set<string>();
  const visit = (x: Schema | undefined, depth: number): void => {
    const d = deref(x);
    if (!d || depth > 8) return;
    for (const part of d.allOf ?? []) visit(part, depth + 1);
    Object.assign(props, d.properties);
    for (const r of d.required ?? []) required.add(r);
  };
  visit(s, 0);
  return { props, required };
}

/** Every schema a member's schema may be: through $ref, oneOf and anyOf. */
function alternatives(s: Schema | undefined, deref: (s: Schema | undefined) => Schema | undefined, depth = 0): Schema[] {
  const d = deref(s);
  if (!d || depth > 6) return [];
  const alts = [...(d.oneOf ?? []), ...(d.anyOf ?? [])];
  return alts.length ? alts.flatMap((a) => alternatives(a, deref, depth + 1)) : [d];
}

function typesOf(s: Schema): string[] {
  return s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
}

/** The kind of a member from the schema of its answered value. */
export function kindOf(s: Schema | undefined, deref: (s: Schema | undefined) => Schema | undefined): Kind {
  for (const a of alternatives(s, deref)) {
    const types = typesOf(a).filter((t) => t !== "null");
    if (types.includes("boolean")) return "boolean";
    if (types.includes("integer")) return "integer";
    if (types.includes("number")) return "number";
    if (types.includes("object") || types.includes("array")) return "object";
    if (types.includes("string")) return a.format === "date" ? "date" : a.format === "date-time" ? "date-time" : "text";
  }
  return "text";
}

/** The values an enum member takes, null left out. */
function valuesOf(s: Schema | undefined, deref: (s: Schema | undefined) => Schema | undefined): string[] | undefined {
  for (const a of alternatives(s, deref)) {
    const vs = a.enum?.filter((v): v is string | number => typeof v === "string" || typeof v === "number").map(String);
    if (vs?.length) return vs;
  }
  return undefined;
}

/** The operators fitting each type, where the list declares none. */
const opsByKind: Record<Kind, Operator[]> = {
  text: ["eq", "ne", "contains", "prefix", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  integer: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  number: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  boolean: ["eq", "ne", "is_null"],
  date: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  "date-time": ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  object: ["is_null"],
};

function members(record: Schema, patch: Schema | undefined, create: Schema | undefined, list: Operation | undefined, deref: (s: Schema | undefined) => Schema | undefined): Member[] {
  const writable = flatten(patch, deref);
  const creatable = flatten(create, deref);
  const filterParam = list?.parameters?.find((p) => p.name === "filter")?.schema;
  const filters = flatten(filterParam, deref).props;
  const orderParam = deref(list?.parameters?.find((p) => p.name === "order_by")?.schema);
  const order = orderParam?.pattern ? new RegExp(orderParam.pattern) : undefined;
  const out: Member[] = [];
  for (const [name, s] of Object.entries(record.properties ?? {})) {
    if (name === "expand") continue;
    const kind = kindOf(s, deref);
    const declared = alternatives(filters[name], deref)
      .flatMap((a) => Object.keys(a.properties ?? {}))
      .filter((o): o is Operator => (operators as readonly string[]).includes(o));
    const d = deref(s);
    const written = writable.props[name] ?? creatable.props[name];
    const bound = alternatives(written ?? s, deref);
    const m: Member = {
      name,
      kind,
      readOnly: d?.readOnly === true || (name !== "id" && written === undefined),
      writable: written !== undefined,
      required: name !== "id" && creatable.required.has(name),
      ops: declared.length ? [...new Set(declared)] : filters[name] ? ["eq"] : list ? opsByKind[kind] : [],
      sortable: order ? order.test(name) : false,
    };
    const values = valuesOf(s, deref) ?? valuesOf(written, deref);
    if (values && !(kind === "boolean")) m.values = values;
    const description = d?.description ?? deref(written)?.description;
    if (description) m.description = description;
    for (const b of bound) {
      if (b.minimum !== undefined) m.min = b.minimum;
      if (b.maximum !== undefined) m.max = b.maximum;
      if (b.maxLength !== undefined) m.maxLength = b.maxLength;
    }
    out.push(m);
  }
  return out;
}

function edges(record: Schema, deref: (s: Schema | undefined) => Schema | undefined): Edge[] {
  const expand = deref(record.properties?.["expand"]);
  const out: Edge[] = [];
  for (const [name, s] of Object.entries(expand?.properties ?? {})) {
    for (const a of [s, ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
      const ref = a.type === "array" ? a.items?.$ref : a.$ref;
      if (ref?.startsWith(refPrefix)) {
        out.push({ name, many: a.type === "array", schema: ref.slice(refPrefix.length) });
        break;
      }
    }
  }
  return out;
}

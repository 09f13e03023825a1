// What the console knows of the API, read from its OpenAPI document at run
// time: the resources by plural, each member's type and rules, the routes
// of each call and where their answers hold the record. Nothing here names
// a resource or a component: a record is the object its routes answer with
// an id and a version, its members' types and rules are what the schemas
// of its answers and bodies say, followed through every reference, so a
// resource added by a spec edit appears with no change to the console, and
// so do components renamed. Features the server gains later (search,
// trash, revert, GET /v1/me) light up when their routes or parameters
// appear.

import type { ResourceRoute, ResourceRoutes } from "../../clients/typescript/src/runtime.js";
import { Doc } from "./openapi.js";
import type { Method, OpenAPIDocument, Operation, Schema } from "./openapi.js";

export type { OpenAPIDocument, Schema } from "./openapi.js";

/** How a member is shown, edited and filtered. */
export type Kind = "text" | "integer" | "number" | "boolean" | "date" | "date-time" | "object";

/** The operators of a filter (docs/api.md, Filters). */
export const operators = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "prefix", "is_null"] as const;
export type Operator = (typeof operators)[number];

/** What the document says a written value must be, beyond its type (the server checks it again). */
export interface Rules {
  /** The least and greatest length, in characters (Unicode code points, as JSON Schema counts). */
  minLength?: number;
  maxLength?: number;
  /** Patterns the text matches, every one. */
  patterns: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** A member of a resource's records. */
export interface Member {
  name: string;
  kind: Kind;
  /** The server writes it (id, version, team_id…); never sent. */
  readOnly: boolean;
  /** An update (PATCH) may set it. */
  writable: boolean;
  /** A create may set it. */
  creatable: boolean;
  /** Written, never answered (a sensitive member): offered in forms, never a column. */
  writeOnly: boolean;
  /** A create must give it (the create body's required). */
  required: boolean;
  /** A write may send null for it. */
  nullable: boolean;
  /** The values it takes, when the document lists them. */
  values?: string[];
  /** What a create that leaves it out gets. */
  default?: unknown;
  description?: string;
  rules: Rules;
  /** The filter operators the list declares for it. */
  ops: Operator[];
  /** The list may be ordered by it. */
  sortable: boolean;
}

/** A related record set: children (many) or a parent. */
export interface Edge {
  name: string;
  many: boolean;
  /** The related records' schema; catalog.resourceOf finds their resource. */
  record: Schema;
}

/** A resource as the console shows it. */
export interface Resource {
  plural: string;
  /** The record schema's component name, where it has one (else the plural). */
  schema: string;
  /** The record schema: what identifies the resource among the document's schemas. */
  record: Schema;
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
  /** The resource whose records a schema is (an edge's record). */
  resourceOf(record: Schema): Resource | undefined;
  /** GET /v1/me exists. */
  me: boolean;
  events: boolean;
  stream: boolean;
  webhooks: boolean;
}

/** Members of an answer that hold no record of its own: where a page is, and related records. */
const envelopeOnly = new Set(["paging", "expand"]);

/** The catalog of what the document declares. */
export function catalog(raw: OpenAPIDocument): Catalog {
  const doc = new Doc(raw);
  const op = (method: Method, path: string) => doc.operation(method, path);
  const resources: Resource[] = [];
  for (const path of Object.keys(raw.paths).sort()) {
    const plural = /^\/v1\/([^/{}]+)\/\{id\}\/history$/.exec(path)?.[1];
    if (!plural || !op("get", path)) continue;
    const one = `/v1/${plural}/{id}`;
    const record = recordOf(doc, [doc.answer(op("patch", one)), doc.answer(op("get", one)), doc.answer(op("post", `/v1/${plural}`))]);
    if (record) resources.push(resource(doc, plural, record));
  }
  const byRecord = new Map(resources.map((r) => [r.record, r]));
  return {
    title: raw.info?.title ?? "Records",
    resources,
    byPlural: new Map(resources.map((r) => [r.plural, r])),
    resourceOf: (s) => {
      const b = doc.base(s);
      return b ? byRecord.get(b) : undefined;
    },
    me: op("get", "/v1/me") !== undefined,
    events: op("get", "/v1/events") !== undefined,
    stream: op("get", "/v1/events/stream") !== undefined,
    webhooks: op("get", "/v1/webhooks") !== undefined,
  };
}

/** Whether s is a record: an object with an id and a version. */
function isRecordShape(doc: Doc, s: Schema): boolean {
  const props = doc.properties(s);
  return "id" in props && "version" in props && doc.types(s).includes("object");
}

/**
 * The record schema answers hold, first answer first: breadth first through
 * their alternatives, members and items, the first object with an id and a
 * version — one that always has its version (a full record) before one
 * that may leave it out (a sparse one).
 */
function recordOf(doc: Doc, answers: (Schema | undefined)[]): Schema | undefined {
  for (const answer of answers) {
    const seen = new Set<Schema>();
    let level: Schema[] = answer ? [answer] : [];
    for (let depth = 0; level.length && depth < 8; depth++) {
      const next: Schema[] = [];
      const found: Schema[] = [];
      for (const s of level) {
        const b = doc.base(s);
        if (!b || seen.has(b)) continue;
        seen.add(b);
        if (isRecordShape(doc, b)) found.push(b);
        else {
          const variants = doc.variants(b);
          if (variants.length > 1 || variants[0] !== b) next.push(...variants);
          for (const [k, v] of Object.entries(doc.properties(b))) if (!envelopeOnly.has(k)) next.push(v);
          const items = doc.keyword(b, "items");
          if (items) next.push(items);
        }
      }
      const full = found.find((s) => doc.required(s).has("version")) ?? found[0];
      if (full) return full;
      level = next;
    }
  }
  return undefined;
}

/**
 * where finds the record (or, with many, the array of records) in an
 * answer's schema: the members and indexes leading to it.
 */
export function where(doc: Doc, answer: Schema | undefined, record: Schema, many: boolean): (string | number)[] | undefined {
  const isRecord = (x: Schema | undefined): boolean => {
    const xb = doc.base(x);
    return xb === record || doc.variants(xb).some((v) => doc.base(v) === record);
  };
  // A schema already searched held no record (else the search had ended).
  const searched = new Set<Schema>();
  const search = (s: Schema | undefined, depth: number): (string | number)[] | undefined => {
    const b = doc.base(s);
    if (!b || depth > 8 || searched.has(b)) return undefined;
    searched.add(b);
    if (!many && isRecord(b)) return [];
    if (doc.isArray(b) && isRecord(doc.keyword(b, "items"))) return many ? [] : [0];
    const variants = doc.variants(b);
    if (variants.length > 1 || variants[0] !== b) {
      for (const v of variants) {
        const at = search(v, depth + 1);
        if (at) return at;
      }
    }
    for (const [k, v] of Object.entries(doc.properties(b))) {
      if (envelopeOnly.has(k)) continue;
      const at = search(v, depth + 1);
      if (at) return [k, ...at];
    }
    return undefined;
  };
  return search(answer, 0);
}

function resource(doc: Doc, plural: string, record: Schema): Resource {
  const op = (method: Method, path: string) => doc.operation(method, path);
  const one = `/v1/${plural}/{id}`;
  const route = (method: Method, path: string, many = false): ResourceRoute | undefined => {
    const at = where(doc, doc.answer(op(method, path)), record, many);
    return at ? { path: path.replace("{id}", ":id"), at } : undefined;
  };
  const routes: ResourceRoutes = {};
  // The list: /v1/<plural> if it answers a page of records, else the
  // shortest route without an id that does (an operation of the contract
  // may hold the generic path, as GET /v1/cases does).
  const lists = Object.keys(doc.raw.paths)
    .filter((p) => !p.includes("{") && p.startsWith("/v1/") && "paging" in doc.properties(doc.answer(op("get", p))))
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
  const listParams = new Set(doc.parameters(listOp).map((p) => p.name));
  const readParams = new Set(doc.parameters(op("get", one)).map((p) => p.name));
  return {
    plural,
    schema: doc.schemaName(record) ?? plural,
    record,
    members: members(doc, record, writeSchema(doc, op("patch", one)), writeSchema(doc, op("post", `/v1/${plural}`)), listOp),
    edges: edges(doc, record),
    routes,
    search: listParams.has("q"),
    trash: listParams.has("trashed"),
    readTrashed: readParams.has("trashed"),
  };
}

/** The object schema a write takes for one record (a body may also take an array of them). */
function writeSchema(doc: Doc, o: Operation | undefined): Schema | undefined {
  if (!o) return undefined;
  return doc.variants(doc.body(o)).find((v) => !doc.isArray(v) && doc.types(v).includes("object"));
}

/** The JSON types that hold a value of each kind. */
const kindTypes: Record<Kind, string[]> = {
  text: ["string"],
  integer: ["integer", "number"],
  number: ["number", "integer"],
  boolean: ["boolean"],
  date: ["string"],
  "date-time": ["string"],
  object: ["object", "array"],
};

/** The kind of a member from its schema: its first alternative that is not null. */
export function kindOf(doc: Doc, s: Schema | undefined): Kind {
  for (const v of doc.variants(s)) {
    const types = doc.types(v).filter((t) => t !== "null");
    if (types.includes("boolean")) return "boolean";
    if (types.includes("integer")) return "integer";
    if (types.includes("number")) return "number";
    if (types.includes("object") || types.includes("array")) return "object";
    if (types.includes("string")) {
      const format = doc.keyword(v, "format");
      return format === "date" ? "date" : format === "date-time" ? "date-time" : "text";
    }
  }
  return "text";
}

/** The alternative of s that holds a value of the kind (the one whose rules apply), if any. */
function variantOf(doc: Doc, s: Schema | undefined, kind: Kind): Schema | undefined {
  return doc.variants(s).find((v) => doc.types(v).some((t) => kindTypes[kind].includes(t)));
}

/** The values an enum (or const) lists, null left out. */
function valuesOf(doc: Doc, s: Schema | undefined): string[] | undefined {
  if (!s) return undefined;
  const c = doc.keyword(s, "const");
  const vs = (c !== undefined ? [c] : (doc.keyword(s, "enum") ?? []))
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map(String);
  return vs.length ? vs : undefined;
}

function rulesOf(doc: Doc, s: Schema | undefined): Rules {
  const rules: Rules = { patterns: s ? [...new Set(doc.keywords(s, "pattern"))] : [] };
  if (!s) return rules;
  for (const k of ["minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
    const v = doc.keyword(s, k);
    if (typeof v === "number") rules[k] = v;
  }
  return rules;
}

/** The operators fitting each type, where the list's filter says nothing member by member. */
const opsByKind: Record<Kind, Operator[]> = {
  text: ["eq", "ne", "contains", "prefix", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  integer: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  number: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  boolean: ["eq", "ne", "is_null"],
  date: ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  "date-time": ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "is_null"],
  object: ["is_null"],
};

/**
 * The filter a list takes: its filter parameter's schema (the console
 * sends filters in the query string), else the filter member of its body.
 */
function filterSchema(doc: Doc, list: Operation | undefined): Schema | undefined {
  return doc.parameter(list, "filter")?.schema ?? doc.properties(doc.body(list))["filter"];
}

/** The operators a member's filter declares: the members of its alternatives that are objects of operators. */
function declaredOps(doc: Doc, s: Schema | undefined): Operator[] {
  const names = doc
    .variants(s)
    .filter((v) => doc.types(v).includes("object") || Object.keys(doc.properties(v)).length > 0)
    .flatMap((v) => Object.keys(doc.properties(v)))
    .filter((o): o is Operator => (operators as readonly string[]).includes(o));
  return [...new Set(names)];
}

/** Whether the list may be ordered by a member, as its order_by parameter's pattern or values say. */
function orderable(doc: Doc, list: Operation | undefined): (name: string) => boolean {
  const s = doc.parameter(list, "order_by")?.schema;
  if (!s) return () => false;
  const tests: ((name: string) => boolean)[] = [];
  for (const v of doc.variants(s)) {
    for (const p of doc.keywords(v, "pattern")) {
      try {
        const re = new RegExp(p, "u");
        tests.push((name) => re.test(name));
      } catch {
        // A pattern JavaScript cannot read orders nothing here; the server still takes it.
      }
    }
    const values = valuesOf(doc, v);
    if (values) tests.push((name) => values.includes(name) || values.includes("-" + name));
  }
  return (name) => tests.some((t) => t(name));
}

function members(doc: Doc, record: Schema, patch: Schema | undefined, create: Schema | undefined, list: Operation | undefined): Member[] {
  const answered = doc.properties(record);
  const writes = doc.properties(patch);
  const creates = doc.properties(create);
  const required = doc.required(create);
  const filter = filterSchema(doc, list);
  const filters = doc.properties(filter);
  const saysByMember = Object.keys(filters).length > 0;
  const sortable = orderable(doc, list);
  // The record's members, then those only written (sensitive members are never answered).
  const names = [...Object.keys(answered), ...Object.keys(writes), ...Object.keys(creates)].filter((n, i, all) => n !== "expand" && all.indexOf(n) === i);
  return names.map((name) => {
    const answer = answered[name];
    const written = writes[name] ?? creates[name];
    const writeOnly = answer === undefined || doc.keyword(written, "writeOnly") === true;
    const kind = kindOf(doc, answer ?? written);
    const rule = variantOf(doc, written, kind);
    const declared = declaredOps(doc, filters[name]);
    const m: Member = {
      name,
      kind,
      readOnly: doc.keyword(answer, "readOnly") === true || (name !== "id" && written === undefined),
      writable: writes[name] !== undefined,
      creatable: creates[name] !== undefined,
      writeOnly,
      required: name !== "id" && required.has(name),
      nullable: written === undefined || doc.variants(written).some((v) => doc.types(v).length === 0 || doc.types(v).includes("null")),
      rules: rulesOf(doc, rule),
      ops: writeOnly ? [] : declared.length ? declared : filters[name] ? ["eq"] : filter && !saysByMember ? opsByKind[kind] : [],
      sortable: !writeOnly && sortable(name),
    };
    const values = valuesOf(doc, rule) ?? valuesOf(doc, variantOf(doc, answer, kind));
    if (values && kind !== "boolean") m.values = values;
    const fallback = doc.keyword(written, "default") ?? doc.keyword(rule, "default");
    if (fallback !== undefined) m.default = fallback;
    const description = doc.keyword(answer, "description") ?? doc.keyword(written, "description");
    if (description) m.description = description;
    return m;
  });
}

function edges(doc: Doc, record: Schema): Edge[] {
  const out: Edge[] = [];
  for (const [name, s] of Object.entries(doc.properties(doc.properties(record)["expand"]))) {
    for (const v of doc.variants(s)) {
      const many = doc.isArray(v);
      const target = doc.base(many ? doc.keyword(v, "items") : v);
      if (target && isRecordShape(doc, target)) {
        out.push({ name, many, record: target });
        break;
      }
    }
  }
  return out;
}

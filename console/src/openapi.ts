// Reading an OpenAPI 3.1 document as its structure says, whatever its
// components are named: every $ref followed (a JSON pointer into the
// document, to a schema, parameter, request body or response, through
// chains of them), the keywords a reference carries beside its $ref kept,
// and a schema's parts seen through allOf (all of which hold) and oneOf or
// anyOf (one of which holds). document.ts builds the console's catalog on
// this; nothing here knows the records API.

/** A JSON Schema as the document writes it; only what the console reads is typed. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
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
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: Schema;
}

export interface MediaType {
  schema?: Schema;
}

/** A request body or a response: what it holds by media type. */
export interface Content {
  $ref?: string;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: Content;
  responses?: Record<string, Content>;
}

export const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type Method = (typeof methods)[number];

export type PathItem = { $ref?: string; parameters?: Parameter[] } & { [M in Method]?: Operation };

/** The parts of an OpenAPI 3.1 document the console reads. */
export interface OpenAPIDocument {
  info?: { title?: string; version?: string };
  paths: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown> | undefined>;
}

/** How deep references and compositions are followed: a cycle or a runaway document stops here. */
const maxDepth = 32;

/** A JSON media type, but not a problem's (application/problem+json). */
const isJSON = (mediaType: string): boolean => /^application\/(.+\+)?json$/.test(mediaType) && !mediaType.includes("problem");

/** An OpenAPI document, read through its references. */
export class Doc {
  readonly raw: OpenAPIDocument;
  #names: Map<object, string> | undefined;
  // The document is read many times over while the catalog is built; it does not change meanwhile.
  readonly #pointees = new Map<string, unknown>();
  readonly #nodes = new WeakMap<Schema, Schema[]>();

  constructor(raw: OpenAPIDocument) {
    this.raw = raw;
  }

  /** What a local reference ("#/components/schemas/Return") points at; undefined when nothing. */
  pointee(ref: string): unknown {
    if (this.#pointees.has(ref)) return this.#pointees.get(ref);
    let at: unknown = ref.startsWith("#") ? this.raw : undefined;
    for (const raw of ref.startsWith("#") ? ref.slice(1).split("/").slice(1) : []) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) {
        at = undefined;
        break;
      }
      at = (at as Record<string, unknown>)[key];
    }
    this.#pointees.set(ref, at);
    return at;
  }

  /** The object at the end of x's chain of references (x itself when it has none): what identifies a schema. */
  base<T extends { $ref?: string }>(x: T | undefined): T | undefined {
    for (let i = 0; x?.$ref !== undefined; i++) {
      if (i >= maxDepth) return undefined;
      x = this.pointee(x.$ref) as T | undefined;
    }
    return x;
  }

  /** A parameter, request body or response with its reference followed, the keywords beside the $ref laid over it. */
  deref<T extends { $ref?: string }>(x: T | undefined): T | undefined {
    const b = this.base(x);
    if (!x || !b || x === b) return b;
    let own = false;
    for (const k in x) if (k !== "$ref") own = true;
    if (!own) return b;
    const { $ref: _, ...siblings } = x;
    return { ...b, ...siblings };
  }

  /** The component name a schema has ("Return"), or undefined for one written in place. */
  schemaName(s: Schema | undefined): string | undefined {
    if (!this.#names) {
      this.#names = new Map();
      for (const [name, v] of Object.entries(this.raw.components?.["schemas"] ?? {})) {
        if (v && typeof v === "object" && !this.#names.has(v)) this.#names.set(v, name);
      }
    }
    const b = this.base(s);
    return b ? this.#names.get(b) : undefined;
  }

  /** An operation that is declared and not deprecated, with the parameters of its path item. */
  operation(method: Method, path: string): Operation | undefined {
    const item = this.deref(this.raw.paths[path]);
    const o = item?.[method];
    if (!item || !o || o.deprecated) return undefined;
    return item.parameters ? { ...o, parameters: [...item.parameters, ...(o.parameters ?? [])] } : o;
  }

  /** An operation's parameters, references followed; an operation's own replaces its path item's of the same name and place. */
  parameters(o: Operation | undefined): Parameter[] {
    const byKey = new Map<string, Parameter>();
    for (const p of o?.parameters ?? []) {
      const d = this.deref(p);
      if (d?.name) byKey.set(`${d.in ?? ""} ${d.name}`, d);
    }
    return [...byKey.values()];
  }

  /** The parameter of a name an operation takes in the query (or anywhere, when no query one has it). */
  parameter(o: Operation | undefined, name: string): Parameter | undefined {
    const ps = this.parameters(o).filter((p) => p.name === name);
    return ps.find((p) => p.in === "query") ?? ps[0];
  }

  /** The JSON schema of a request body or response. */
  jsonSchema(c: Content | undefined): Schema | undefined {
    const d = this.deref(c);
    for (const [type, m] of Object.entries(d?.content ?? {})) if (isJSON(type) && m.schema) return m.schema;
    return undefined;
  }

  /** The JSON schema of an operation's success (its first 2xx answer with one). */
  answer(o: Operation | undefined): Schema | undefined {
    const statuses = Object.keys(o?.responses ?? {})
      .filter((s) => /^2(\d\d|XX)$/i.test(s))
      .sort();
    for (const s of statuses) {
      const schema = this.jsonSchema(o?.responses?.[s]);
      if (schema) return schema;
    }
    return undefined;
  }

  /** The JSON schema of an operation's request body. */
  body(o: Operation | undefined): Schema | undefined {
    return this.jsonSchema(o?.requestBody);
  }

  /**
   * The schemas whose keywords all hold of s: s itself (the keywords beside
   * its $ref first), what its $ref points at, and its allOf's, in turn.
   */
  nodes(s: Schema | undefined): Schema[] {
    if (!s) return [];
    const known = this.#nodes.get(s);
    if (known) return known;
    // Each schema once: a cycle stops, and a part twice holds no more than once.
    const out: Schema[] = [];
    const seen = new Set<Schema>();
    const visit = (x: Schema | undefined, depth: number): void => {
      if (!x || depth > maxDepth || seen.has(x)) return;
      seen.add(x);
      out.push(x);
      if (x.$ref !== undefined) visit(this.pointee(x.$ref) as Schema | undefined, depth + 1);
      for (const part of x.allOf ?? []) visit(part, depth + 1);
    };
    visit(s, 0);
    this.#nodes.set(s, out);
    return out;
  }

  /**
   * The schemas s may be: through oneOf and anyOf (nested, and behind
   * references), each alternative once; s itself when it has none.
   */
  variants(s: Schema | undefined): Schema[] {
    const out: Schema[] = [];
    const seen = new Set<Schema>();
    const visit = (x: Schema | undefined, depth: number): void => {
      if (!x || depth > maxDepth || seen.has(x)) return;
      seen.add(x);
      const union = this.nodes(x).find((n) => n.oneOf || n.anyOf);
      if (!union) out.push(x);
      else for (const a of [...(union.oneOf ?? []), ...(union.anyOf ?? [])]) visit(a, depth + 1);
    };
    visit(s, 0);
    return out;
  }

  /** A keyword's value: the first of the schemas that hold of s to state it. */
  keyword<K extends keyof Schema>(s: Schema | undefined, k: K): Schema[K] | undefined {
    for (const n of this.nodes(s)) if (n[k] !== undefined) return n[k];
    return undefined;
  }

  /** Every value of a keyword the schemas that hold of s state (several patterns, through allOf). */
  keywords<K extends keyof Schema>(s: Schema | undefined, k: K): NonNullable<Schema[K]>[] {
    const out: NonNullable<Schema[K]>[] = [];
    for (const n of this.nodes(s)) if (n[k] !== undefined && n[k] !== null) out.push(n[k] as NonNullable<Schema[K]>);
    return out;
  }

  /** The JSON types s admits ([] for any): its type, else those of its const or enum. */
  types(s: Schema | undefined): string[] {
    const t = this.keyword(s, "type");
    if (t !== undefined) return Array.isArray(t) ? t : [t];
    const c = this.keyword(s, "const");
    const values = c !== undefined ? [c] : (this.keyword(s, "enum") ?? []);
    return [...new Set(values.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v)))];
  }

  /** The members of an object schema, through its references and allOf (the first to name one wins). */
  properties(s: Schema | undefined): Record<string, Schema> {
    const out: Record<string, Schema> = {};
    for (const n of this.nodes(s)) for (const [k, v] of Object.entries(n.properties ?? {})) if (!(k in out)) out[k] = v;
    return out;
  }

  /** The members an object schema requires, through its references and allOf. */
  required(s: Schema | undefined): Set<string> {
    return new Set(this.nodes(s).flatMap((n) => n.required ?? []));
  }

  /** Whether s is a schema of arrays (and not also of something else but null). */
  isArray(s: Schema | undefined): boolean {
    const t = this.types(s).filter((x) => x !== "null");
    return t.length === 1 && t[0] === "array";
  }
}

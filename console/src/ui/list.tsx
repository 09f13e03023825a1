// A resource's records: a column per member, a filter builder with the
// operators each member takes, order by a header's click, search where
// the list takes q, pages by cursor, a count on demand, a CSV export, and
// the trash where the list takes trashed.

import { Component } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ListParams, ResourcePage } from "../../../clients/typescript/src/runtime.js";
import type { Session } from "../api.js";
import type { Member, Operator, Resource } from "../document.js";
import { decodeList, emptyList, encodeList, nextOrder, operatorNames, toFilter } from "../filters.js";
import type { Condition, ListState } from "../filters.js";
import { go, href } from "../route.js";
import { cell, download } from "../values.js";
import type { Rec } from "../values.js";
import { ProblemBox, Status, inputTypes, useLoad } from "./common.js";

const pageSize = 100;

/** The query a list state asks: its filter, order and cursor, and the extra parameters (q, trashed). */
function request(r: Resource, s: ListState): { p: ListParams; extra: Record<string, string> } {
  const p: ListParams = { limit: pageSize };
  const filter = toFilter(s.conds, r);
  if (filter) p.filter = filter;
  if (s.order) p.order_by = s.order;
  if (s.cursor) p.cursor = s.cursor;
  const extra: Record<string, string> = {};
  if (s.q && r.search) extra["q"] = s.q;
  if (s.trashed && r.trash) extra["trashed"] = "only";
  return { p, extra };
}

/** The same list without its page: what decides whether earlier pages still apply. */
function sansCursor(s: ListState): string {
  return encodeList({ ...s, cursor: "" });
}

export function ListPage({ session, resource: r, query }: { session: Session; resource: Resource; query: string }) {
  const state = decodeList(query);
  const svc = session.service(r);
  const page = useLoad<ResourcePage<Rec>>(() => {
    const { p, extra } = request(r, state);
    return svc.list(p, extra);
  }, [r.plural, query]);
  // The cursors of the pages before this one, for "Previous page".
  const [trail, setTrail] = useState<{ key: string; cursors: string[] }>({ key: sansCursor(state), cursors: [] });
  const cursors = trail.key === sansCursor(state) ? trail.cursors : [];
  const [total, setTotal] = useState<string>("");
  const [busy, setBusy] = useState<unknown>(null);
  const [note, setNote] = useState("");
  useEffect(() => setTotal(""), [r.plural, sansCursor(state)]);
  useEffect(() => {
    // What the browser test reads: when the first page stood on the screen.
    if (page.value) performance.mark("records:list-ready");
  }, [page.value]);

  const show = (s: ListState) => go({ page: "list", plural: r.plural, query: encodeList(s) });
  const next = () => {
    const c = page.value?.paging.next_cursor;
    if (!c) return;
    performance.mark("records:next-page");
    setTrail({ key: sansCursor(state), cursors: [...cursors, state.cursor] });
    show({ ...state, cursor: c });
  };
  const previous = () => {
    const back = cursors[cursors.length - 1];
    setTrail({ key: sansCursor(state), cursors: cursors.slice(0, -1) });
    show({ ...state, cursor: back ?? "" });
  };
  const count = async () => {
    setBusy(null);
    setTotal("Counting…");
    try {
      const { p, extra } = request(r, { ...state, cursor: "" });
      const res = await svc.list({ ...p, limit: 1, fields: ["id"], count: "exact" }, extra);
      const n = res.paging.total ?? 0;
      setTotal(`${n.toLocaleString("en")} ${n === 1 ? "record" : "records"}`);
    } catch (e) {
      setTotal("");
      setBusy(e);
    }
  };
  const exportCSV = async () => {
    setBusy(null);
    setNote("Exporting…");
    try {
      const { p, extra } = request(r, { ...state, cursor: "" });
      delete p.limit;
      const res = await svc.export(p, "text/csv", extra);
      download(`${r.plural}.csv`, await res.blob());
      setNote("Exported.");
    } catch (e) {
      setNote("");
      setBusy(e);
    }
  };
  const restore = async (id: string) => {
    setBusy(null);
    try {
      await svc.restore(id);
      setNote(`Restored ${id}.`);
      page.reload();
    } catch (e) {
      setBusy(e);
    }
  };

  // A member written and never answered has no column. One array per
  // resource: the rows render again only when their columns change.
  const columns = useMemo(() => r.members.filter((m) => !m.writeOnly), [r]);
  const records = page.value?.records ?? [];
  const pageNo = cursors.length + 1;
  const canRestore = r.routes.restore !== undefined && session.can(r.plural, "restore");
  return (
    <section aria-labelledby="list-title">
      <div class="title-row">
        <h2 id="list-title" tabIndex={-1}>
          {r.plural}
          {state.trashed && " — trash"}
        </h2>
        {r.routes.create && session.can(r.plural, "create") && !state.trashed && (
          <a class="button" href={href({ page: "new", plural: r.plural })}>
            New record
          </a>
        )}
      </div>
      {r.search && <SearchBox key={state.q} value={state.q} onSearch={(q) => show({ ...state, q, cursor: "" })} />}
      <FilterBuilder key={sansCursor(state)} resource={r} conds={state.conds} onApply={(conds) => show({ ...state, conds, cursor: "" })} />
      <div class="toolbar">
        <button type="button" onClick={count}>
          Count
        </button>
        {total && <span role="status">{total}</span>}
        <button type="button" onClick={exportCSV}>
          Export CSV
        </button>
        {r.trash && session.can(r.plural, "restore") && (
          <a class="button" href={href({ page: "list", plural: r.plural, query: encodeList({ ...emptyList, trashed: !state.trashed }) })}>
            {state.trashed ? "Leave the trash" : "Trash"}
          </a>
        )}
        {(state.conds.length > 0 || state.q || state.order) && (
          <a class="button" href={href({ page: "list", plural: r.plural, query: encodeList({ ...emptyList, trashed: state.trashed }) })}>
            Clear
          </a>
        )}
      </div>
      {note && <Status text={note} />}
      <ProblemBox error={busy} />
      <ProblemBox error={page.error} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label={`${r.plural}, page ${pageNo}`}>
        <table aria-busy={page.loading}>
          <thead>
            <tr>
              {canRestore && state.trashed && <th scope="col">Restore</th>}
              {columns.map((m) => (
                <Header key={m.name} m={m} order={state.order} onOrder={(o) => show({ ...state, order: o, cursor: "" })} />
              ))}
            </tr>
          </thead>
          <Rows records={records} columns={columns} plural={r.plural} restore={canRestore && state.trashed ? restore : undefined} />
        </table>
        {page.value && records.length === 0 && <p class="empty">No records.</p>}
      </div>
      <nav class="pager" aria-label="Pages">
        <button type="button" onClick={() => show({ ...state, cursor: "" })} disabled={!state.cursor}>
          First page
        </button>
        <button type="button" onClick={previous} disabled={!state.cursor}>
          Previous page
        </button>
        <span>
          {state.cursor && cursors.length === 0 ? "A later page" : `Page ${pageNo}`}
          {page.value ? ` · ${records.length} shown` : ""}
          {page.loading ? " · loading…" : ""}
        </span>
        <button type="button" onClick={next} disabled={!page.value?.paging.next_cursor || page.loading}>
          Next page
        </button>
      </nav>
    </section>
  );
}

interface RowsProps {
  records: Rec[];
  columns: Member[];
  plural: string;
  restore: ((id: string) => void) | undefined;
}

/**
 * The table's rows, rendered again only for new records: a page is 100
 * rows of every member, and the list renders for every change of its
 * state (a click, the address, the load starting), most of which leave
 * the rows as they are.
 */
class Rows extends Component<RowsProps> {
  override shouldComponentUpdate(next: RowsProps): boolean {
    const p = this.props;
    return next.records !== p.records || next.columns !== p.columns || next.plural !== p.plural || (next.restore === undefined) !== (p.restore === undefined);
  }

  override render() {
    const { records, columns, plural } = this.props;
    return (
      <tbody>
        {records.map((rec) => {
          const id = String(rec["id"]);
          return (
            <tr key={id}>
              {this.props.restore && (
                <td>
                  <button type="button" onClick={() => this.props.restore?.(id)} aria-label={`Restore ${id}`}>
                    Restore
                  </button>
                </td>
              )}
              {columns.map((m) =>
                m.name === "id" ? (
                  <td key="id">
                    <a href={href({ page: "record", plural, id })}>{id}</a>
                  </td>
                ) : (
                  <td key={m.name}>{cell(rec[m.name])}</td>
                ),
              )}
            </tr>
          );
        })}
      </tbody>
    );
  }
}

/** A column's header; a button that orders by the member where the list may be ordered by it. */
function Header({ m, order, onOrder }: { m: Member; order: string; onOrder: (o: string) => void }) {
  const sort = order === m.name ? "ascending" : order === "-" + m.name ? "descending" : undefined;
  if (!m.sortable) return <th scope="col">{m.name}</th>;
  return (
    <th scope="col" aria-sort={sort}>
      <button type="button" class="sort" onClick={() => onOrder(nextOrder(order, m.name))} title={`Order by ${m.name}`}>
        {m.name}
        <span aria-hidden="true">{sort === "ascending" ? " ▲" : sort === "descending" ? " ▼" : ""}</span>
      </button>
    </th>
  );
}

function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(value);
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <label htmlFor="search">Search</label>
      <input id="search" type="search" maxLength={256} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <button type="submit">Search</button>
    </form>
  );
}

/** The builder's rows: a member, one of the operators it takes, and a value of its type. */
function FilterBuilder({ resource: r, conds, onApply }: { resource: Resource; conds: Condition[]; onApply: (c: Condition[]) => void }) {
  const filterable = r.members.filter((m) => m.ops.length > 0);
  const [rows, setRows] = useState<Condition[]>(conds);
  const added = useRef<HTMLSelectElement>(null);
  const [focusNew, setFocusNew] = useState(false);
  useEffect(() => {
    if (focusNew) added.current?.focus();
    setFocusNew(false);
  }, [focusNew]);
  const first = filterable[0];
  if (!first) return null;
  const set = (i: number, c: Partial<Condition>) => setRows(rows.map((x, j) => (j === i ? { ...x, ...c } : x)));
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(rows.filter((c) => c.op === "is_null" || c.value.trim() !== ""));
      }}
    >
      {rows.map((c, i) => {
        const m = filterable.find((x) => x.name === c.member) ?? first;
        const n = i + 1;
        return (
          <div class="condition" key={i}>
            <select
              aria-label={`Filter ${n} member`}
              ref={i === rows.length - 1 ? added : undefined}
              value={m.name}
              onChange={(e) => {
                const nm = filterable.find((x) => x.name === e.currentTarget.value) ?? first;
                set(i, { member: nm.name, op: nm.ops.includes(c.op) ? c.op : (nm.ops[0] as Operator), value: "" });
              }}
            >
              {filterable.map((x) => (
                <option key={x.name} value={x.name}>
                  {x.name}
                </option>
              ))}
            </select>
            <select aria-label={`Filter ${n} operator`} value={c.op} onChange={(e) => set(i, { op: e.currentTarget.value as Operator })}>
              {m.ops.map((o) => (
                <option key={o} value={o}>
                  {operatorNames[o]}
                </option>
              ))}
            </select>
            <FilterValue n={n} m={m} c={c} onChange={(value) => set(i, { value })} />
            <button type="button" aria-label={`Remove filter ${n}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        );
      })}
      <div class="toolbar">
        <button
          type="button"
          onClick={() => {
            setRows([...rows, { member: first.name, op: first.ops[0] as Operator, value: "" }]);
            setFocusNew(true);
          }}
        >
          Add filter
        </button>
        {(rows.length > 0 || conds.length > 0) && <button type="submit">Apply filters</button>}
      </div>
    </form>
  );
}

function FilterValue({ n, m, c, onChange }: { n: number; m: Member; c: Condition; onChange: (v: string) => void }) {
  const label = `Filter ${n} value`;
  if (c.op === "is_null") {
    return (
      <select aria-label={label} value={c.value === "false" ? "false" : "true"} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  }
  const many = c.op === "in" || c.op === "nin";
  if (!many && (m.kind === "boolean" || m.values)) {
    const values = m.values ?? ["true", "false"];
    return (
      <select aria-label={label} value={c.value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">—</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  const type = many || c.op === "contains" || c.op === "prefix" ? "text" : inputTypes[m.kind];
  return (
    <input
      aria-label={label}
      type={type as "text"}
      step={type === "number" ? "any" : type === "datetime-local" ? 1 : undefined}
      placeholder={many ? "values, separated by commas" : undefined}
      value={c.value}
      onInput={(e) => onChange(e.currentTarget.value)}
    />
  );
}

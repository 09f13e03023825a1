// The records related to one by expand: its children in tables, its
// parent as a link.

import type { Session } from "../api.js";
import type { Resource } from "../document.js";
import { href } from "../route.js";
import { cell } from "../values.js";
import type { Rec } from "../values.js";

/** The records related by expand: children in tables, the parent as a link. */
export function Related({ session, resource: r, rec }: { session: Session; resource: Resource; rec: Rec }) {
  const expanded = (rec["expand"] ?? {}) as Record<string, unknown>;
  if (r.edges.length === 0) return null;
  return (
    <section aria-labelledby="related-title">
      <h3 id="related-title">Related</h3>
      {r.edges.map((e) => {
        const target = session.catalog.resourceOf(e.record);
        const v = expanded[e.name];
        if (!e.many) {
          const parent = v as Rec | null | undefined;
          return (
            <p key={e.name}>
              {e.name}:{" "}
              {parent && target ? <a href={href({ page: "record", plural: target.plural, id: String(parent["id"]) })}>{String(parent["id"])}</a> : "none"}
            </p>
          );
        }
        const kids = (Array.isArray(v) ? v : []) as Rec[];
        const cols = (target?.members ?? []).filter((m) => !m.writeOnly).slice(0, 6);
        return (
          <div key={e.name} class="children">
            <h4>
              {e.name} ({kids.length})
            </h4>
            {kids.length > 0 && (
              <div class="table-wrap" tabIndex={0} role="region" aria-label={e.name}>
                <table>
                  <thead>
                    <tr>
                      {cols.map((m) => (
                        <th scope="col" key={m.name}>
                          {m.name}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {kids.map((k) => (
                      <tr key={String(k["id"])}>
                        {cols.map((m) =>
                          m.name === "id" && target ? (
                            <td key="id">
                              <a href={href({ page: "record", plural: target.plural, id: String(k["id"]) })}>{String(k["id"])}</a>
                            </td>
                          ) : (
                            <td key={m.name}>{cell(k[m.name])}</td>
                          ),
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {target?.routes.create && session.can(target.plural, "create") && <a href={href({ page: "new", plural: target.plural })}>New {target.plural} record</a>}
          </div>
        );
      })}
    </section>
  );
}

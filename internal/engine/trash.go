package engine

import (
	"context"
	"database/sql"
	"net/url"
	"slices"
	"time"

	"records/internal/auth"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// Trash is which records a request sees (DESIGN §17): those not in the
// trash (the default), only those in it, or both.
type Trash uint8

// The ways of seeing the trash.
const (
	Live Trash = iota
	TrashOnly
	TrashIncluded
)

// ParamTrashed is the parameter of lists and gets that asks for the trash.
const ParamTrashed = "trashed"

// liveOnly narrows a statement to the records not in the trash. Every
// index a list of them walks is partial on it (package gen), so the trash
// costs their reads nothing.
const liveOnly = ` AND "deleted_at" IS NULL`

// cond is the condition of the rows t sees, after the team's.
func (t Trash) cond() string {
	switch t {
	case TrashOnly:
		return ` AND "deleted_at" IS NOT NULL`
	case TrashIncluded:
		return ""
	}
	return liveOnly
}

type trashKey struct{}

// withTrash returns ctx whose statements see the records t sees.
func withTrash(ctx context.Context, t Trash) context.Context {
	if t == Live && trashOf(ctx) == Live {
		return ctx
	}
	return context.WithValue(ctx, trashKey{}, t)
}

// trashOf is what the statements of ctx see of the trash.
func trashOf(ctx context.Context) Trash {
	t, _ := ctx.Value(trashKey{}).(Trash)
	return t
}

// parseTrashed reads the value of ?trashed=.
func parseTrashed(raw []byte) (Trash, error) {
	s, err := wire.Text(raw)
	switch {
	case err != nil:
	case s == "only":
		return TrashOnly, nil
	case s == "include":
		return TrashIncluded, nil
	}
	return Live, problem.Member(ParamTrashed, `must be "only" or "include"`)
}

// askTrash prepares a read that asked for the trash: a role needs restore
// on the resource to see it (DESIGN §15).
func askTrash(ctx context.Context, res scoped, t Trash) (context.Context, error) {
	if t == Live {
		return ctx, nil
	}
	if err := accessOf(ctx).may(res, policy.Restore); err != nil {
		return ctx, err
	}
	return withTrash(ctx, t), nil
}

// Cascade is a table whose records name a parent in Column: trashing the
// parent trashes them in its batch, restoring it restores them.
type Cascade struct {
	Table, Column string
}

// trashMark is when and by whom a record went to the trash.
type trashMark struct {
	at int64 // microseconds since 1970
	by sql.NullString
}

// loadTrash reads the trash marks of the records of a read that asked for
// the trash, so that those in it answer deleted_at and deleted_by.
func loadTrash[E any](ctx context.Context, r Reader, res *Resource[E], team int, v *view[E], records []*E) error {
	if trashOf(ctx) == Live || len(records) == 0 {
		return nil
	}
	ids := make([]string, len(records))
	for i, e := range records {
		ids[i] = res.ID(e)
	}
	in, args := inIDs(r, "id", ids)
	v.trash = make(map[string]trashMark, len(records))
	return r.Each(ctx, -1, `SELECT "id", "deleted_at", "deleted_by" FROM `+spec.Ident(res.Table)+
		` WHERE `+in+` AND "team_id" = ? AND "deleted_at" IS NOT NULL`, append(args, team), func(rows *sql.Rows) error {
		var id string
		var m trashMark
		if err := rows.Scan(&id, &m.at, &m.by); err != nil {
			return err
		}
		v.trash[id] = m
		return nil
	})
}

// appendTrash appends the members of a trashed record's mark.
func appendTrash(b []byte, m trashMark) []byte {
	b = append(b, `,"deleted_at":"`...)
	b = time.UnixMicro(m.at).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","deleted_by":`...)
	if m.by.Valid {
		return wire.AppendString(b, m.by.String)
	}
	return append(b, "null"...)
}

// deleter is who moves records to the trash: the caller's subject, or its
// token.
func deleter(ctx context.Context) any {
	p, _ := auth.FromContext(ctx)
	switch {
	case p.Subject != "":
		return p.Subject
	case p.TokenID != "":
		return p.TokenID
	}
	return nil
}

// trashSet is the SET clause moving records to the trash in one batch.
const trashSet = `"deleted_at" = ?, "deleted_by" = ?, "trash_batch" = ?, "version" = "version" + 1`

// trashStamp is the values of trashSet: now, the deleter, a new batch.
func trashStamp(ctx context.Context) []any {
	return []any{time.Now().UnixMicro(), deleter(ctx), spec.NewID()}
}

// trashChildren moves to the trash, in the batch of stamp, the records of
// the tables cascades name whose parent is in table and that batch, and
// theirs in turn.
func (s *Service) trashChildren(ctx context.Context, w Writer, table string, cascades []Cascade, team int, stamp []any) error {
	for _, c := range cascades {
		text := `UPDATE ` + spec.Ident(c.Table) + ` SET ` + trashSet + ` WHERE "team_id" = ?` + liveOnly +
			` AND ` + spec.Ident(c.Column) + ` IN (SELECT "id" FROM ` + spec.Ident(table) + ` WHERE "trash_batch" = ? AND "team_id" = ?)`
		if _, err := w.Exec(ctx, text, append(append(stamp[:3:3], team), stamp[2], team)...); err != nil {
			return err
		}
		if err := s.trashChildren(ctx, w, c.Table, s.cascadesOf(c.Table), team, stamp); err != nil {
			return err
		}
	}
	return nil
}

// cascadesOf are the cascades of the resource whose table is table.
func (s *Service) cascadesOf(table string) []Cascade {
	for _, r := range s.resources {
		if d, ok := r.(Described); ok && d.table() == table {
			return d.cascades()
		}
	}
	return nil
}

// TrashTables are the tables of every resource, each parent before the
// tables its records cascade to: the order in which the janitor empties
// the trash, so that a parent is purged with its children.
func (s *Service) TrashTables() []string {
	var out []string
	var visit func(table string)
	visit = func(table string) {
		for _, t := range out {
			if t == table {
				return
			}
		}
		out = append(out, table)
		for _, c := range s.cascadesOf(table) {
			visit(c.Table)
		}
	}
	children := map[string]bool{}
	for _, r := range s.resources {
		for _, c := range r.(Described).cascades() {
			children[c.Table] = true
		}
	}
	var roots []string
	for _, r := range s.resources {
		if t := r.(Described).table(); !children[t] {
			roots = append(roots, t)
		}
	}
	slices.Sort(roots)
	for _, t := range roots {
		visit(t)
	}
	return out
}

// takeTrashed takes ?trashed= out of a list's body members and query
// string (the body wins, as for every list parameter).
func takeTrashed(members []wire.Member, q url.Values) (Trash, []wire.Member, error) {
	var raw []byte
	if v, ok := q[ParamTrashed]; ok {
		delete(q, ParamTrashed)
		if len(v) > 0 {
			raw = wire.AppendString(nil, v[len(v)-1])
		}
	}
	rest := members[:0:0]
	for _, m := range members {
		if m.Name == ParamTrashed {
			raw = m.Value
			continue
		}
		rest = append(rest, m)
	}
	if raw == nil {
		return Live, members, nil
	}
	t, err := parseTrashed(raw)
	return t, rest, err
}

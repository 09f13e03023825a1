package engine

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"records/internal/edge"
	"records/internal/tenant"
)

// readSQL holds a resource's read statements, built once.
type readSQL struct {
	once  sync.Once
	byID  string
	lists sync.Map // list SQL by the query's shape
}

// readContext prepares ctx for a plain read. Where reads are interrupted
// (PostgreSQL) it bounds ctx by the request's deadline; where they are not
// (SQLite: in process, indexed, a page at most), see edge.Unbounded.
func (s *Service) readContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.InterruptReads {
		ctx, cancel := edge.Bounded(ctx)
		return ctx, cancel, nil
	}
	ctx, err := edge.Unbounded(ctx)
	return ctx, func() {}, err
}

// teamOf returns the context's team; reads fail closed without one.
func teamOf(ctx context.Context) (int, error) {
	team, ok := tenant.Team(ctx)
	if !ok {
		return 0, tenant.ErrNoTeam
	}
	return team, nil
}

// find reads the record with id in the context's team, or reports found false.
func find[E any](ctx context.Context, r Reader, res *Resource[E], id string) (*E, bool, error) {
	team, err := teamOf(ctx)
	if err != nil {
		return nil, false, err
	}
	res.reads.once.Do(func() {
		res.reads.byID = res.Select + ` WHERE "id" = ? AND "team_id" = ?`
	})
	var e *E
	err = r.Each(ctx, 1, res.reads.byID, []any{id, team}, func(rows *sql.Rows) (err error) {
		e, err = res.Scan(rows)
		return err
	})
	if err == nil && e != nil && res.LoadEmbeds != nil {
		err = res.LoadEmbeds(ctx, r, team, []*E{e})
	}
	if err != nil || e == nil {
		return nil, false, err
	}
	return e, true, nil
}

// page reads a page of records in the context's team: Limit+1 of them, to
// tell whether more follow.
func page[E any](ctx context.Context, r Reader, res *Resource[E], q *ListQuery) ([]*E, error) {
	team, err := teamOf(ctx)
	if err != nil {
		return nil, err
	}
	args := make([]any, 0, len(q.Filters)+3)
	args = append(args, team)
	for _, f := range q.Filters {
		if f.Value != nil {
			args = append(args, f.Value)
		}
	}
	args = append(args, q.Limit+1, q.Offset)
	records, err := query(ctx, r, res, q.Limit+1, res.listSQL(q), args)
	if err != nil {
		return nil, err
	}
	return records, loadEmbeds(ctx, r, res, team, records)
}

// listSQL is the statement of a list of q's shape: its filters (by column,
// null or not), order and direction. Shapes are few, so texts are cached
// and prepared once each.
func (res *Resource[E]) listSQL(q *ListQuery) string {
	var key strings.Builder
	key.WriteString(q.OrderBy)
	if q.Desc {
		key.WriteString(" desc")
	}
	for _, f := range q.Filters {
		key.WriteString("|" + f.Column)
		if f.Value == nil {
			key.WriteString(" null")
		}
	}
	if text, ok := res.reads.lists.Load(key.String()); ok {
		return text.(string)
	}
	var b strings.Builder
	b.WriteString(res.Select)
	b.WriteString(` WHERE "team_id" = ?`)
	for _, f := range q.Filters {
		b.WriteString(` AND "` + f.Column + `"`)
		if f.Value == nil {
			b.WriteString(" IS NULL")
		} else {
			b.WriteString(" = ?")
		}
	}
	b.WriteString(" ORDER BY " + q.orderSQL() + " LIMIT ? OFFSET ?")
	text := b.String()
	res.reads.lists.Store(key.String(), text)
	return text
}

// query reads at most max records (-1: all).
func query[E any](ctx context.Context, r Reader, res *Resource[E], max int, text string, args []any) ([]*E, error) {
	var out []*E
	if max > 0 {
		out = make([]*E, 0, max)
	}
	err := r.Each(ctx, max, text, args, func(rows *sql.Rows) error {
		e, err := res.Scan(rows)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

func loadEmbeds[E any](ctx context.Context, r Reader, res *Resource[E], team int, records []*E) error {
	if res.LoadEmbeds == nil || len(records) == 0 {
		return nil
	}
	return res.LoadEmbeds(ctx, r, team, records)
}

// LoadChildren reads, in one query, the children (resource child, naming
// their parent in column fk) of every parent, ordered by id, and hands each
// parent its own with set (an empty list when it has none).
func LoadChildren[P, C any](ctx context.Context, r Reader, team int, child *Resource[C], fk string,
	parents []*P, id func(*P) string, parentOf func(*C) *string, set func(*P, []*C)) error {
	args := make([]any, 0, len(parents)+1)
	args = append(args, team)
	byID := make(map[string][]*C, len(parents))
	var marks strings.Builder
	for i, p := range parents {
		if i > 0 {
			marks.WriteString(", ")
		}
		marks.WriteByte('?')
		args = append(args, id(p))
		byID[id(p)] = []*C{}
	}
	text := child.Select + ` WHERE "team_id" = ? AND "` + fk + `" IN (` + marks.String() + `) ORDER BY "id"`
	children, err := query(ctx, r, child, -1, text, args)
	if err != nil {
		return err
	}
	for _, c := range children {
		if pid := parentOf(c); pid != nil {
			byID[*pid] = append(byID[*pid], c)
		}
	}
	for _, p := range parents {
		set(p, byID[id(p)])
	}
	return nil
}

package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"sync"

	"records/internal/edge"
	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/tenant"
)

// readSQL holds a resource's read statements, built once.
type readSQL struct {
	once sync.Once
	byID string
}

// readContext prepares ctx for a read of one record. Where reads are
// interrupted (PostgreSQL) it bounds ctx by the request's deadline; where
// they are not (SQLite: in process, one row by its key), see edge.Unbounded.
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
		res.reads.byID = res.Select + ` WHERE "id" = ? AND ` + teamOnly
	})
	args := make([]any, 1, 2)
	args[0] = id
	cond, args := rowScope(ctx, res, policy.Read, team, args)
	text := res.reads.byID
	if cond != teamOnly {
		text = res.Select + ` WHERE "id" = ? AND ` + cond
	}
	var e *E
	err = r.Each(ctx, 1, text, args, func(rows *sql.Rows) (err error) {
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

// readPage reads a page of records in the context's team: Limit+1 of them,
// to tell whether more follow, phase after phase (see query.Page.Phases);
// and, for a page ordered by rank, the relevance tier of each. Its records'
// holders go back to their pool with the scanner's Release (nil: none).
func readPage[E any](ctx context.Context, r Reader, res *Resource[E], team int, p *query.Page) ([]*E, []int, PageScanner[E], error) {
	want := p.Limit + 1
	out, tiers := make([]*E, 0, want), make([]int, 0, want)
	var page PageScanner[E]
	scan := res.Scan
	if res.ScanPage != nil {
		page = res.ScanPage(want)
		scan = page.Scan
	}
	if p.Rank != nil && p.Rank.Walk != nil && p.Rank.Walk.Windows && p.Offset == 0 && p.CheckTier() == nil {
		if err := walkWindows(ctx, r, p); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, ph := range p.Phases() {
		text, args := res.pageSQL(ctx, p, ph, team, want-len(out))
		err := r.Each(ctx, want-len(out), text, args, func(rows *sql.Rows) error {
			e, err := scan(rows)
			if err == nil {
				out = append(out, e)
				tiers = append(tiers, ph.Tier)
			}
			return err
		})
		if err != nil {
			release(page) // no record of it is answered
			return nil, nil, nil, err
		}
		if len(out) == want {
			break
		}
	}
	return out, tiers, page, nil
}

// pageSQL is the statement of one phase of a page, reading at most n records;
// a narrow phase (query.Phase.Narrow) sorts rowids in a subquery, then reads
// the records it keeps by rowid, in the same order.
func (res *Resource[E]) pageSQL(ctx context.Context, p *query.Page, ph query.Phase, team, n int) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 4+len(p.Args)+len(ph.Args))
	b.Grow(len(res.Select) + len(p.Where) + len(ph.Cond) + len(ph.OrderBy) + 96)
	if p.Rank != nil && p.Rank.PlanEachTime {
		b.WriteString(spec.PlanEachTime)
	}
	var table string // a narrow phase's, quoted
	if ph.Narrow {
		table = spec.Ident(res.Table)
		// The phase's rowids sorted, then its records read by rowid.
		// NOT INDEXED: the set's rowids are looked up (still allowed),
		// where a planner without statistics walks the list's index,
		// which holds every column the subquery reads, to the end.
		b.WriteString(strings.TrimSuffix(res.Select, " FROM "+table))
		b.WriteString(` FROM (SELECT "rowid" AS "r" FROM ` + table + ` NOT INDEXED`)
	} else {
		b.WriteString(res.Select)
	}
	cond, args := rowScope(ctx, res, policy.Read, team, args)
	b.WriteString(` WHERE `)
	b.WriteString(cond)
	if p.Where != "" {
		b.WriteString(" AND ")
		b.WriteString(p.Where)
		args = append(args, p.Args...)
	}
	if ph.Cond != "" {
		b.WriteString(" AND ")
		b.WriteString(ph.Cond)
	}
	args = append(args, ph.Args...) // the condition's, then the order's
	b.WriteString(" ORDER BY ")
	b.WriteString(ph.OrderBy)
	if p.Rank != nil && p.Rank.Prepared {
		b.WriteString(" LIMIT (SELECT CAST(? AS bigint))") // query.Ranked.Prepared
	} else {
		b.WriteString(" LIMIT ?")
	}
	args = append(args, n)
	if ph.Narrow {
		b.WriteString(`) AS "p" CROSS JOIN ` + table + ` ON ` + table + `."rowid" = "p"."r" ORDER BY ` + ph.OrderBy)
	}
	if ph.Offset {
		b.WriteString(" OFFSET ?")
		args = append(args, p.Offset)
	}
	return b.String(), args
}

// estimateFloor is the count below which an estimate is replaced by an
// exact count: small counts are cheap, and an estimate of them is poor.
const estimateFloor = 10000

// count counts the records the page's filter matches in the team: exactly,
// or, when asked for an estimate on PostgreSQL, from the planner's
// statistics if they say more than estimateFloor. It tells which it did.
func count[E any](ctx context.Context, s *Service, res *Resource[E], team int, p *query.Page, how query.Count) (int64, bool, error) {
	cond, args := rowScope(ctx, res, policy.Read, team, make([]any, 0, 1+len(p.Args)))
	where := ` FROM "` + res.Table + `" WHERE ` + cond
	if p.Where != "" {
		where += " AND " + p.Where
		args = append(args, p.Args...)
	}
	if how == query.Estimated && s.Dialect == query.Postgres {
		var plan string
		err := s.reader(ctx).Each(ctx, 1, "EXPLAIN (FORMAT JSON) SELECT 1"+where, args, func(rows *sql.Rows) error { return rows.Scan(&plan) })
		if err != nil {
			return 0, false, err
		}
		var doc []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			} `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(plan), &doc); err == nil && len(doc) == 1 && doc[0].Plan.Rows > estimateFloor {
			return int64(doc[0].Plan.Rows), true, nil
		}
	}
	var n int64
	err := s.reader(ctx).Each(ctx, 1, "SELECT COUNT(*)"+where, args, func(rows *sql.Rows) error { return rows.Scan(&n) })
	return n, false, err
}

// readAll reads at most max records (-1: all).
func readAll[E any](ctx context.Context, r Reader, res *Resource[E], max int, text string, args []any) ([]*E, error) {
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
	if len(parents) == 0 {
		return nil
	}
	ids := make([]string, len(parents))
	byID := make(map[string][]*C, len(parents))
	for i, p := range parents {
		ids[i] = id(p)
		byID[ids[i]] = []*C{}
	}
	text, args := childrenOf(ctx, r, child, fk, team, ids)
	children, err := readAll(ctx, r, child, -1, text, args)
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

// resolveCursor reads the values of the long text keys a page's cursor
// carries by their digest from the record it follows, where there are any
// (query.Position.Resolve).
func resolveCursor[E any](ctx context.Context, r Reader, res *Resource[E], team int, p *query.Page) error {
	digested := p.After.Digested()
	if len(digested) == 0 {
		return nil
	}
	cols := make([]string, len(digested))
	for k, i := range digested {
		cols[k] = spec.Ident(p.Keys[i].Col.Name)
	}
	cond, args := rowScope(ctx, res, policy.Read, team, []any{p.After.ID})
	text := `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + spec.Ident(res.Table) + ` WHERE "id" = ? AND ` + cond
	values := make([]sql.NullString, len(digested))
	found := false
	err := r.Each(ctx, 1, text, args, func(rows *sql.Rows) error {
		found = true
		dest := make([]any, len(values))
		for k := range values {
			dest[k] = &values[k]
		}
		return rows.Scan(dest...)
	})
	if err != nil {
		return err
	}
	if err := p.After.Resolve(found, values); err != nil {
		return problem.Member(query.ParamCursor, "%v", err)
	}
	return nil
}

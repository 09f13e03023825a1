package engine

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/lib/pq"

	"records/internal/edge"
	"records/internal/policy"
	"records/internal/spec"
)

// inIDs is the condition "column holds one of ids" with its parameters:
// on PostgreSQL one array parameter (= ANY), so the statement is the same
// text however many ids a page has; on SQLite an IN list padded to a power
// of two by repeating the last id (which changes nothing it matches), so
// that its texts stay few and each is prepared once.
func inIDs(r Reader, column string, ids []string) (string, []any) {
	if r.Postgres() {
		return spec.Ident(column) + ` = ANY(?)`, []any{pq.StringArray(ids)}
	}
	n := 1
	for n < len(ids) {
		n *= 2
	}
	var b strings.Builder
	spec.WriteIdent(&b, column)
	b.WriteString(` IN (`)
	args := make([]any, n)
	for i := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('?')
		args[i] = ids[min(i, len(ids)-1)]
	}
	b.WriteByte(')')
	return b.String(), args
}

// childrenOf is the statement reading the children (resource child,
// naming their parent in column fk) of the parents ids of team, with its
// arguments: in the order of the index (team_id, fk, id), which SQLite
// walks without sorting, so each parent's children come together and by id.
func childrenOf[C any](ctx context.Context, r Reader, child *Resource[C], fk string, team int, ids []string) (string, []any) {
	in, inArgs := inIDs(r, fk, ids)
	cond, args := rowScope(ctx, child, policy.Read, team, make([]any, 0, 1+len(inArgs)))
	return child.Select + ` WHERE ` + cond + ` AND ` + in + ` ORDER BY "` + fk + `", "id"`, append(args, inArgs...)
}

// ExpandChildren is the Load of an edge from parents of type P to their children
// (resource child, naming their parent in column fk, read by parentOf): one
// query for every record of the page, at most MaxChildren children each,
// ordered by id.
func ExpandChildren[P, C any](child *Resource[C], fk string, id func(*P) string, parentOf func(*C) *string) func(context.Context, Reader, int, []*P) (expansion, error) {
	return func(ctx context.Context, r Reader, team int, parents []*P) (expansion, error) {
		ids := make([]string, len(parents))
		for i, p := range parents {
			ids[i] = id(p)
		}
		if r.Postgres() {
			// Each parent's first MaxChildren children, read along the
			// index (team_id, fk, id), parent after parent: the lateral
			// join's nested loop answers them so, and readChildren checks
			// that it did, rather than PostgreSQL sorting them again. Were
			// they not, they are read again in an order asked for.
			cond, args := rowScope(ctx, child, policy.Read, team, []any{pq.StringArray(ids)})
			text := `SELECT ` + child.qualifiedSelectList(`"c"`) + ` FROM unnest(?::text[]) WITH ORDINALITY AS "p"("id", "n") CROSS JOIN LATERAL (SELECT * FROM "` +
				child.Table + `" WHERE ` + cond + ` AND "` + fk + `" = "p"."id" ORDER BY "id" LIMIT ` + strconv.Itoa(spec.MaxChildren) + `) AS "c"`
			x, _, err := readChildren(ctx, r, child, text, args, parents, id, parentOf)
			if errors.Is(err, errScattered) {
				x, _, err = readChildren(ctx, r, child, text+` ORDER BY "p"."n", "c"."id"`, args, parents, id, parentOf)
			}
			return x, err
		}
		// SQLite walks the index (team_id, fk, id) parent after parent, in
		// order, so nothing is sorted: the rows past a parent's MaxChildren
		// are read and dropped, and the statement stops at as many rows as
		// the parents may have in all, and one more.
		limit := len(ids)*spec.MaxChildren + 1
		text, args := childrenOf(ctx, r, child, fk, team, ids)
		x, n, err := readChildren(ctx, r, child, text+` LIMIT ?`, append(args, limit), parents, id, parentOf)
		if err != nil || n < limit {
			return x, err
		}
		// That many rows: a parent has more than MaxChildren, and the ones
		// after it may have been cut short. A window numbers each parent's
		// children instead (reading all of them).
		x.release()
		in, inArgs := inIDs(r, fk, ids)
		cond, args := rowScope(ctx, child, policy.Read, team, make([]any, 0, 1+len(inArgs)))
		text = `SELECT ` + child.selectList() + ` FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "` + fk + `" ORDER BY "id") AS "n" FROM "` +
			child.Table + `" WHERE ` + cond + ` AND ` + in + `) AS "` + child.Table + `" WHERE "n" <= ` +
			strconv.Itoa(spec.MaxChildren) + ` ORDER BY "` + fk + `", "id"`
		x, _, err = readChildren(ctx, r, child, text, append(args, inArgs...), parents, id, parentOf)
		return x, err
	}
}

// errScattered: a parent's children did not come together.
var errScattered = errors.New("a parent's children came apart")

// readChildren runs a statement answering the children of parents, parent
// after parent and each parent's by id, and encodes them as they are read —
// each into the same record (Resource.Scanner) — into one pooled buffer that
// every parent's list is a part of. A parent's children past MaxChildren
// are dropped; children that do not come parent after parent are
// errScattered. It tells how many rows it read.
func readChildren[P, C any](ctx context.Context, r Reader, child *Resource[C], text string, args []any,
	parents []*P, id func(*P) string, parentOf func(*C) *string) (expansion, int, error) {
	type span struct{ from, to int }
	spans := make(map[string]span, len(parents))
	pooled := edge.GetBuffer()
	buf := pooled.B
	scan := child.Scan
	if child.Scanner != nil {
		scan = child.Scanner()
	}
	encode := encoder(ctx, child)
	open, count, rows := "", 0, 0 // the parent whose list buf ends with, and its children so far
	closeOpen := func() {
		if open != "" {
			buf = append(buf, ']')
			spans[open] = span{spans[open].from, len(buf)}
		}
	}
	err := r.Each(ctx, -1, text, args, func(row *sql.Rows) error {
		rows++
		c, err := scan(row)
		if err != nil {
			return err
		}
		pid := parentOf(c)
		if pid == nil {
			return nil
		}
		if *pid == open {
			if count == spec.MaxChildren {
				return nil
			}
			buf = append(buf, ',')
		} else {
			closeOpen()
			if _, seen := spans[*pid]; seen {
				return errScattered
			}
			open, count = *pid, 0
			spans[open] = span{from: len(buf)}
			buf = append(buf, '[')
		}
		count++
		buf = encode(buf, c)
		return nil
	})
	if err != nil {
		pooled.B = buf
		edge.PutBuffer(pooled)
		return expansion{}, rows, err
	}
	closeOpen()
	pooled.B = buf
	out := make([][]byte, len(parents))
	for i, p := range parents {
		if sp, ok := spans[id(p)]; ok {
			out[i] = buf[sp.from:sp.to:sp.to]
		} else {
			out[i] = emptyList
		}
	}
	return expansion{parts: out, buf: pooled}, rows, nil
}

// emptyList and null are the JSON of no children and of no parent; shared,
// never written to.
var (
	emptyList = []byte("[]")
	null      = []byte("null")
)

// ExpandParent is the Load of an edge from children of type C to their parent
// (resource parent; parentOf reads the child's member naming it): one query
// for every record of the page.
func ExpandParent[C, P any](parent *Resource[P], parentOf func(*C) *string) func(context.Context, Reader, int, []*C) (expansion, error) {
	return func(ctx context.Context, r Reader, team int, children []*C) (expansion, error) {
		var ids []string
		seen := map[string]bool{}
		for _, c := range children {
			if pid := parentOf(c); pid != nil && !seen[*pid] {
				seen[*pid] = true
				ids = append(ids, *pid)
			}
		}
		out := make([][]byte, len(children))
		byID := map[string][]byte{}
		if len(ids) > 0 {
			in, inArgs := inIDs(r, "id", ids)
			cond, args := rowScope(ctx, parent, policy.Read, team, make([]any, 0, 1+len(inArgs)))
			text := parent.Select + ` WHERE ` + cond + ` AND ` + in
			parents, err := readAll(ctx, r, parent, -1, text, append(args, inArgs...))
			if err != nil {
				return expansion{}, err
			}
			if err := loadEmbeds(ctx, r, parent, team, parents); err != nil {
				return expansion{}, err
			}
			encode := encoder(ctx, parent)
			for _, p := range parents {
				byID[parent.ID(p)] = encode(nil, p)
			}
		}
		for i, c := range children {
			out[i] = null
			if pid := parentOf(c); pid != nil {
				if b, ok := byID[*pid]; ok {
					out[i] = b
				}
			}
		}
		return expansion{parts: out}, nil
	}
}

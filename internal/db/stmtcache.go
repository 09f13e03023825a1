package db

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"records/internal/spec"
	"records/internal/tracing"
)

// stmtCache prepares each distinct SQL text once and reuses the statement.
// ent builds SQL text but does not prepare it; without the cache lib/pq pays
// an extra round trip per query and SQLite compiles every query again.
//
// ent writes LIMIT and OFFSET as literals, so paging can make many texts; the
// cache keeps at most max statements and runs the rest unprepared.
type stmtCache struct {
	// system names the database in spans: "postgresql" or "sqlite".
	system string
	db     *sql.DB
	max    int
	// rebind rewrites a query before it is prepared, or is nil.
	rebind func(string) string

	// stmts maps query text to *sql.Stmt. Reads vastly outnumber writes,
	// and a sync.Map reads without a lock both cores would contend for.
	stmts sync.Map
	mu    sync.Mutex // serializes additions, so n stays exact
	n     int
	// ran counts the statements run through the cache, for tests and
	// benchmarks that assert how many a request costs.
	ran atomic.Int64
}

func newStmtCache(db *sql.DB, max int) *stmtCache {
	return &stmtCache{db: db, max: max}
}

// get returns the prepared statement for query, preparing it on first use,
// or nil when the cache is full or query begins with spec.PlanEachTime. No
// lock is held while preparing: that waits for a pooled connection, and a
// transaction holding one may be waiting for the lock.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := c.cached(query); st != nil {
		return st, nil
	}
	if strings.HasPrefix(query, spec.PlanEachTime) {
		return nil, nil
	}
	c.mu.Lock()
	full := c.n >= c.max
	c.mu.Unlock()
	if full {
		return nil, nil
	}
	st, err := c.db.PrepareContext(ctx, c.text(query))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, loaded := c.stmts.LoadOrStore(query, st); loaded {
		// Another caller prepared it meanwhile; keep one.
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	c.n++
	return st, nil
}

// text is the SQL actually run for query.
func (c *stmtCache) text(query string) string {
	if c.rebind == nil {
		return query
	}
	return c.rebind(query)
}

// cached returns the statement for query if it is prepared already.
func (c *stmtCache) cached(query string) *sql.Stmt {
	if st, ok := c.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	return nil
}

// close closes every cached statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	c.stmts.Range(func(q, st any) bool {
		if err := st.(*sql.Stmt).Close(); err != nil && first == nil {
			first = err
		}
		c.stmts.Delete(q)
		return true
	})
	c.n = 0
	return first
}

// dbConn runs queries on the pool through the cache.
type dbConn struct{ c *stmtCache }

func (p dbConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return run(ctx, p.c, query, p.c.get,
		func(ctx context.Context, st *sql.Stmt) (sql.Result, error) { return st.ExecContext(ctx, args...) },
		func(ctx context.Context) (sql.Result, error) {
			return p.c.db.ExecContext(ctx, p.c.text(query), args...)
		})
}

func (p dbConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return run(ctx, p.c, query, p.c.get,
		func(ctx context.Context, st *sql.Stmt) (*sql.Rows, error) { return st.QueryContext(ctx, args...) },
		func(ctx context.Context) (*sql.Rows, error) {
			return p.c.db.QueryContext(ctx, p.c.text(query), args...)
		})
}

// txConn runs queries inside a transaction, reusing statements the cache
// already holds. It never prepares: preparing takes a second connection from
// the pool, which a pool full of transactions could wait for forever.
type txConn struct {
	c  *stmtCache
	tx *sql.Tx
}

// stmt is the cached statement for query bound to the transaction, or nil.
func (t txConn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := t.c.cached(query); st != nil {
		return t.tx.StmtContext(ctx, st), nil
	}
	return nil, nil
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return run(ctx, t.c, query, t.stmt,
		func(ctx context.Context, st *sql.Stmt) (sql.Result, error) { return st.ExecContext(ctx, args...) },
		func(ctx context.Context) (sql.Result, error) { return t.tx.ExecContext(ctx, query, args...) })
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return run(ctx, t.c, query, t.stmt,
		func(ctx context.Context, st *sql.Stmt) (*sql.Rows, error) { return st.QueryContext(ctx, args...) },
		func(ctx context.Context) (*sql.Rows, error) { return t.tx.QueryContext(ctx, query, args...) })
}

// run runs query once, counted and traced: through the statement stmt
// finds for it, or, when it finds none, unprepared; errors classified.
func run[T any](ctx context.Context, c *stmtCache, query string,
	stmt func(context.Context, string) (*sql.Stmt, error),
	prepared func(context.Context, *sql.Stmt) (T, error),
	unprepared func(context.Context) (T, error),
) (out T, err error) {
	c.ran.Add(1)
	ctx, end := tracing.Database(ctx, c.system, query)
	defer func() { end(err) }()
	st, err := stmt(ctx, query)
	switch {
	case err != nil:
	case st != nil:
		out, err = prepared(ctx, st)
	default:
		out, err = unprepared(ctx)
	}
	return out, Classify(ctx, err)
}

// unboundLimits rewrites each `LIMIT ?` of a SQLite statement as `LIMIT +?`,
// leaving quoted text alone. The SQLite modernc.org/sqlite builds (3.53)
// plans a LIMIT bound to a parameter with the parameter's value, and so marks
// the statement stale whenever that parameter is bound again: every run of a
// prepared statement with `LIMIT ?` parsed and planned it anew
// (sqlite3Reprepare: 14 % of a list's CPU). A unary plus hides the parameter
// from that planning (sqlite3ExprIsInteger looks through it only at
// literals), so the statement is planned once, the limit applied as the
// rows are stepped, to the same answer.
func unboundLimits(query string) string {
	const limit = "LIMIT ?"
	if !strings.Contains(query, limit) {
		return query
	}
	return outsideQuotes(query, func(rest string) (string, int) {
		if strings.HasPrefix(rest, limit) {
			return "LIMIT +?", len(limit)
		}
		return "", 0
	})
}

// dollarPlaceholders rewrites ? placeholders as PostgreSQL's $1, $2, …,
// leaving quoted text alone.
func dollarPlaceholders(query string) string {
	n := 0
	return outsideQuotes(query, func(rest string) (string, int) {
		if rest[0] != '?' {
			return "", 0
		}
		n++
		return "$" + strconv.Itoa(n), 1
	})
}

// outsideQuotes rewrites query where it is not quoted text: at each byte
// there, replace is given the rest of the query and answers what to write
// instead and how many bytes that replaces (0: the byte is kept).
func outsideQuotes(query string, replace func(rest string) (string, int)) string {
	var b strings.Builder
	b.Grow(len(query) + 8)
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			if with, n := replace(query[i:]); n > 0 {
				b.WriteString(with)
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

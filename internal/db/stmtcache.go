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
// or nil when the cache is full or query begins with spec.PlanEachTime. No lock is held while preparing: that waits
// for a pooled connection, and a transaction holding one may be waiting for
// the lock.
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

func (p dbConn) ExecContext(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	p.c.ran.Add(1)
	ctx, end := tracing.Database(ctx, p.c.system, query)
	defer func() { end(err) }()
	st, err := p.c.get(ctx, query)
	if err != nil {
		return nil, Classify(ctx, err)
	}
	if st == nil {
		res, err = p.c.db.ExecContext(ctx, p.c.text(query), args...)
	} else {
		res, err = st.ExecContext(ctx, args...)
	}
	return res, Classify(ctx, err)
}

func (p dbConn) QueryContext(ctx context.Context, query string, args ...any) (rows *sql.Rows, err error) {
	p.c.ran.Add(1)
	ctx, end := tracing.Database(ctx, p.c.system, query)
	defer func() { end(err) }()
	st, err := p.c.get(ctx, query)
	if err != nil {
		return nil, Classify(ctx, err)
	}
	if st == nil {
		rows, err = p.c.db.QueryContext(ctx, p.c.text(query), args...)
	} else {
		rows, err = st.QueryContext(ctx, args...)
	}
	return rows, Classify(ctx, err)
}

// txConn runs queries inside a transaction, reusing statements the cache
// already holds. It never prepares: preparing takes a second connection from
// the pool, which a pool full of transactions could wait for forever.
type txConn struct {
	c  *stmtCache
	tx *sql.Tx
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	t.c.ran.Add(1)
	ctx, end := tracing.Database(ctx, t.c.system, query)
	defer func() { end(err) }()
	if st := t.c.cached(query); st != nil {
		res, err = t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	} else {
		res, err = t.tx.ExecContext(ctx, query, args...)
	}
	return res, Classify(ctx, err)
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (rows *sql.Rows, err error) {
	t.c.ran.Add(1)
	ctx, end := tracing.Database(ctx, t.c.system, query)
	defer func() { end(err) }()
	if st := t.c.cached(query); st != nil {
		rows, err = t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	} else {
		rows, err = t.tx.QueryContext(ctx, query, args...)
	}
	return rows, Classify(ctx, err)
}

// dollarPlaceholders rewrites ? placeholders as PostgreSQL's $1, $2, …,
// leaving quoted text alone.
func dollarPlaceholders(query string) string {
	var b strings.Builder
	n := 0
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
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

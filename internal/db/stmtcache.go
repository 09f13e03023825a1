package db

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache prepares each distinct SQL text once and reuses the statement.
// ent builds SQL text but does not prepare it; without the cache lib/pq pays
// an extra round trip per query and SQLite compiles every query again.
//
// ent writes LIMIT and OFFSET as literals, so paging can make many texts; the
// cache keeps at most max statements and runs the rest unprepared.
type stmtCache struct {
	db  *sql.DB
	max int

	mu    sync.RWMutex
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB, max int) *stmtCache {
	return &stmtCache{db: db, max: max, stmts: make(map[string]*sql.Stmt)}
}

// get returns the prepared statement for query, preparing it on first use,
// or nil when the cache is full. No lock is held while preparing: that waits
// for a pooled connection, and a transaction holding one may be waiting for
// the lock.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.RLock()
	st, ok := c.stmts[query]
	full := len(c.stmts) >= c.max
	c.mu.RUnlock()
	if ok {
		return st, nil
	}
	if full {
		return nil, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[query]; ok {
		// Another caller prepared it meanwhile; keep one.
		st.Close()
		return prev, nil
	}
	c.stmts[query] = st
	return st, nil
}

// cached returns the statement for query if it is prepared already.
func (c *stmtCache) cached(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stmts[query]
}

// close closes every cached statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for q, st := range c.stmts {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.stmts, q)
	}
	return first
}

// dbConn runs queries on the pool through the cache.
type dbConn struct{ c *stmtCache }

func (p dbConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return p.c.db.ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

func (p dbConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return p.c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// txConn runs queries inside a transaction, reusing statements the cache
// already holds. It never prepares: preparing takes a second connection from
// the pool, which a pool full of transactions could wait for forever.
type txConn struct {
	c  *stmtCache
	tx *sql.Tx
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.c.cached(query); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.c.cached(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

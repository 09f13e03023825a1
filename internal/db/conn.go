package db

import (
	"context"
	"database/sql"
)

// Conn is one connection of the pool held apart from it, for a background
// worker that must not wait in line behind requests: under a load that
// keeps every pooled connection busy, each statement of the NATS publisher
// waited there for a connection, up to hundreds of milliseconds, and the
// log grew faster than it was published. A Conn is used by one goroutine
// at a time; its statements are prepared on it once per text, and it runs
// each autocommitted (it holds no transaction between statements).
type Conn struct {
	// SQL is the connection, for what a Conn does not run itself (an
	// advisory lock, a ping).
	SQL   *sql.Conn
	db    *DB
	stmts map[string]*sql.Stmt
}

// maxConnStatements bounds what a Conn prepares: its worker runs a handful
// of texts; any beyond run unprepared.
const maxConnStatements = 16

// Conn takes a connection out of the pool until Close.
func (db *DB) Conn(ctx context.Context) (*Conn, error) {
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return nil, Classify(ctx, err)
	}
	return &Conn{SQL: conn, db: db, stmts: map[string]*sql.Stmt{}}, nil
}

// Close closes the Conn's statements and gives the connection back.
func (c *Conn) Close() error {
	for _, st := range c.stmts {
		_ = st.Close()
	}
	c.stmts = nil
	return c.SQL.Close()
}

// stmt is the statement of text prepared on the connection, or nil to run
// it unprepared.
func (c *Conn) stmt(ctx context.Context, text string) (*sql.Stmt, error) {
	if st := c.stmts[text]; st != nil {
		return st, nil
	}
	if len(c.stmts) >= maxConnStatements {
		return nil, nil
	}
	st, err := c.SQL.PrepareContext(ctx, c.db.generated.text(text))
	if err != nil {
		return nil, err
	}
	c.stmts[text] = st
	return st, nil
}

// Each runs a read written with ? placeholders, as DB.Each does, on the
// held connection; a lost connection is not retried (the Conn is lost).
func (c *Conn) Each(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) error {
	g := c.db.generated
	rows, err := run(ctx, g, text, c.stmt,
		func(ctx context.Context, st *sql.Stmt) (*sql.Rows, error) { return st.QueryContext(ctx, args...) },
		func(ctx context.Context) (*sql.Rows, error) { return c.SQL.QueryContext(ctx, g.text(text), args...) })
	if err != nil {
		return err
	}
	_, err = scanRows(ctx, rows, max, scan)
	return err
}

// Exec runs a statement written with ? placeholders on the held connection.
func (c *Conn) Exec(ctx context.Context, text string, args ...any) (sql.Result, error) {
	g := c.db.generated
	return run(ctx, g, text, c.stmt,
		func(ctx context.Context, st *sql.Stmt) (sql.Result, error) { return st.ExecContext(ctx, args...) },
		func(ctx context.Context) (sql.Result, error) { return c.SQL.ExecContext(ctx, g.text(text), args...) })
}

// Postgres tells whether the database is PostgreSQL (else SQLite).
func (c *Conn) Postgres() bool { return c.db.Postgres() }

// scanRows calls scan for each of rows, at most max (all when max < 0), and
// closes them; it returns how many rows it scanned, the failing one
// included. Errors are classified.
func scanRows(ctx context.Context, rows *sql.Rows, max int, scan func(*sql.Rows) error) (n int, err error) {
	defer rows.Close()
	for ; n != max && rows.Next(); n++ {
		if err := scan(rows); err != nil {
			return n + 1, Classify(ctx, err)
		}
	}
	if err := rows.Err(); err != nil {
		return n, Classify(ctx, err)
	}
	return n, Classify(ctx, rows.Close())
}

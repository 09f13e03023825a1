package db

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// PostgreSQL connections are lost when their server goes away (a crash, a
// shutdown, a failover) or stops being the primary (demoted, it answers
// 25006 read_only_sql_transaction to every write). The pool must then drop
// them and open new ones, which a URL of several hosts with
// target_session_attrs=read-write points at the new primary.
//
// database/sql resends a statement on another connection whenever the
// driver answers driver.ErrBadConn, and lib/pq answers it also when the
// statement may have reached the server (the connection closed before its
// answer, a FATAL error): a write resent that way could be made twice.
// Every lib/pq connection is therefore wrapped (lossConn): a statement's
// ErrBadConn becomes ErrConnectionLost, which database/sql does not resend;
// the connection is marked unusable when it fails with connection loss, so
// that database/sql closes it rather than pooling it again; and the pool's
// idle connections, which lead to the same lost server, are closed at once
// (dropIdle). Reads are tried once more by DB.Each; writes never are.

// pqConn is what database/sql uses of a lib/pq connection.
type pqConn interface {
	sqldriver.Conn
	sqldriver.ConnBeginTx
	sqldriver.ConnPrepareContext
	sqldriver.ExecerContext
	sqldriver.QueryerContext
	sqldriver.Pinger
	sqldriver.SessionResetter
	sqldriver.Validator
	sqldriver.NamedValueChecker
}

// pqStmt is what database/sql uses of a lib/pq prepared statement.
type pqStmt interface {
	sqldriver.Stmt
	sqldriver.StmtExecContext
	sqldriver.StmtQueryContext
}

// connector opens lib/pq connections wrapped by lossConn.
type connector struct {
	pq   sqldriver.Connector
	idle *idleDropper
}

// newConnector makes the connector of a lib/pq DSN.
func newConnector(dsn string) (*connector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return &connector{pq: c, idle: &idleDropper{}}, nil
}

func (c *connector) Driver() sqldriver.Driver { return c.pq.Driver() }

func (c *connector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	cn, err := c.pq.Connect(ctx)
	if err != nil {
		// No host of the URL would take a connection (or none is the
		// primary): the database is unavailable, whatever lib/pq's error.
		return nil, &classified{ErrUnavailable, err}
	}
	pc, ok := cn.(pqConn)
	if !ok {
		cn.Close()
		return nil, errors.New("db: lib/pq's connection lacks a method database/sql uses")
	}
	return &lossConn{pqConn: pc, idle: c.idle}, nil
}

// lossConn is a lib/pq connection that tells connection loss apart (see
// above).
type lossConn struct {
	pqConn
	idle *idleDropper
	lost atomic.Bool
}

// failed looks at the error of a statement: connection loss marks the
// connection unusable and drops the idle ones; ErrBadConn is answered as
// ErrConnectionLost, so that database/sql does not send the statement again.
func (c *lossConn) failed(err error) error {
	if !c.lose(err) {
		return err
	}
	if errors.Is(err, sqldriver.ErrBadConn) {
		return lostError{}
	}
	return err
}

// lostError is a statement's driver.ErrBadConn answered as connection
// loss. It does not unwrap to driver.ErrBadConn, on which database/sql
// would send the statement again.
type lostError struct{}

func (lostError) Error() string {
	return "the connection to the database was lost (driver: bad connection)"
}

func (lostError) Is(target error) bool {
	return target == ErrConnectionLost || target == ErrUnavailable
}

// lose marks the connection unusable and drops the idle ones if err is
// connection loss, and tells whether it was.
func (c *lossConn) lose(err error) bool {
	if err == nil || !isLoss(err) {
		return false
	}
	c.lost.Store(true)
	go c.idle.drop()
	return true
}

func (c *lossConn) ExecContext(ctx context.Context, query string, args []sqldriver.NamedValue) (sqldriver.Result, error) {
	res, err := c.pqConn.ExecContext(ctx, query, args)
	return res, c.failed(err)
}

func (c *lossConn) QueryContext(ctx context.Context, query string, args []sqldriver.NamedValue) (sqldriver.Rows, error) {
	rows, err := c.pqConn.QueryContext(ctx, query, args)
	return rows, c.failed(err)
}

// PrepareContext wraps the statement; a failure to prepare is passed on
// as it is: nothing was run, and database/sql may prepare again elsewhere.
func (c *lossConn) PrepareContext(ctx context.Context, query string) (sqldriver.Stmt, error) {
	st, err := c.pqConn.PrepareContext(ctx, query)
	if err != nil {
		c.lose(err)
		return nil, err
	}
	ps, ok := st.(pqStmt)
	if !ok {
		st.Close()
		return nil, errors.New("db: lib/pq's statement lacks a method database/sql uses")
	}
	return &lossStmt{pqStmt: ps, c: c}, nil
}

func (c *lossConn) Prepare(query string) (sqldriver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx passes failures on as they are: a BEGIN changes nothing, and
// database/sql may begin again on another connection.
func (c *lossConn) BeginTx(ctx context.Context, opts sqldriver.TxOptions) (sqldriver.Tx, error) {
	tx, err := c.pqConn.BeginTx(ctx, opts)
	c.lose(err)
	return tx, err
}

func (c *lossConn) Begin() (sqldriver.Tx, error) {
	return c.BeginTx(context.Background(), sqldriver.TxOptions{})
}

func (c *lossConn) ResetSession(ctx context.Context) error {
	if c.lost.Load() {
		return sqldriver.ErrBadConn
	}
	return c.pqConn.ResetSession(ctx)
}

func (c *lossConn) IsValid() bool { return !c.lost.Load() && c.pqConn.IsValid() }

// lossStmt is a prepared statement of a lossConn.
type lossStmt struct {
	pqStmt
	c *lossConn
}

func (s *lossStmt) ExecContext(ctx context.Context, args []sqldriver.NamedValue) (sqldriver.Result, error) {
	res, err := s.pqStmt.ExecContext(ctx, args)
	return res, s.c.failed(err)
}

func (s *lossStmt) QueryContext(ctx context.Context, args []sqldriver.NamedValue) (sqldriver.Rows, error) {
	rows, err := s.pqStmt.QueryContext(ctx, args)
	return rows, s.c.failed(err)
}

// isLoss tells whether err says the connection is lost (see kindOf).
func isLoss(err error) bool { return kindOf(err) == ErrConnectionLost }

// idleDropper closes the pool's idle connections, at most once in
// dropEvery: when one connection finds its server gone, the idle ones lead
// to the same server.
type idleDropper struct {
	pool *sql.DB
	size int
	last atomic.Int64 // unix nanoseconds of the last drop
}

const dropEvery = 100 * time.Millisecond

func (d *idleDropper) drop() {
	if d == nil || d.pool == nil {
		return
	}
	now, last := time.Now().UnixNano(), d.last.Load()
	if now-last < int64(dropEvery) || !d.last.CompareAndSwap(last, now) {
		return
	}
	d.dropNow()
}

// dropNow closes the idle connections now: before a read is tried again,
// so that it runs on a new one.
func (d *idleDropper) dropNow() {
	if d == nil || d.pool == nil {
		return
	}
	d.pool.SetMaxIdleConns(-1) // closes every idle connection
	d.pool.SetMaxIdleConns(d.size)
}

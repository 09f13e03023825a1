// Package db opens the service's database — SQLite in one file or PostgreSQL —
// runs the generated SQL as prepared statements, and offers ent a driver over
// the same statements (Driver) for the tests that use ent's client.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/lib/pq"  // registers "postgres"
	_ "modernc.org/sqlite" // registers "sqlite"

	"records/internal/migrate"
	"records/internal/migrations"
)

// Config says which database to open and how large a pool to keep.
type Config struct {
	// URL is sqlite:PATH, sqlite:///abs/path, postgres://… or postgresql://….
	URL string
	// MaxConns caps open connections; 0 picks a size for this machine.
	MaxConns int
	// Replica opens a PostgreSQL read replica (a hot standby): for reads
	// only, never migrated nor written, and not connected to until read —
	// it may be down when the service starts.
	Replica bool
}

// DB is an open database.
type DB struct {
	// SQL is the connection pool.
	SQL *sql.DB
	// Dialect is ent's name of the database kind: "sqlite3" or "postgres".
	Dialect string

	driver          *driver
	stmts           *stmtCache // ent's statements
	generated       *stmtCache // the generated SQL's, written with ? placeholders
	writeLock       *fifoLock  // SQLite: one writer in process; nil for PostgreSQL
	txs             *atomic.Int64
	stopCheckpoints func()        // SQLite: stops the checkpointer
	queues          *searchQueues // SQLite: the search index's batches
	idle            *idleDropper  // PostgreSQL: drops idle connections on a loss
}

// maxCachedStatements bounds the prepared statements kept per database.
const maxCachedStatements = 512

// Open opens the database named by cfg.URL. It does not migrate; call Migrate
// or CheckSchema.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	src, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if err := src.ensureFolder(); err != nil {
		return nil, fmt.Errorf("creating the database folder: %w", err)
	}
	size := cfg.MaxConns
	if size <= 0 {
		size = defaultPoolSize(src.dialect)
	}
	var pool *sql.DB
	var idle *idleDropper
	if src.dialect == migrate.Postgres {
		conn, err := newConnector(src.dsn)
		if err != nil {
			return nil, fmt.Errorf("database URL %s: %w", redact(cfg.URL), err)
		}
		pool, idle = sql.OpenDB(conn), conn.idle
		idle.pool, idle.size = pool, size
	} else if pool, err = sql.Open(src.driver, src.dsn); err != nil {
		return nil, err
	}
	// Idle connections are kept up to the pool size, so a burst of requests
	// does not reconnect (database/sql keeps only two by default).
	pool.SetMaxOpenConns(size)
	pool.SetMaxIdleConns(size)
	if err := checkServer(ctx, pool, src, cfg); err != nil {
		pool.Close()
		return nil, err
	}
	stmts := newStmtCache(pool, maxCachedStatements)
	generated := newStmtCache(pool, maxCachedStatements)
	stmts.system, generated.system = "sqlite", "sqlite"
	generated.rebind = unboundLimits
	if src.dialect == migrate.Postgres {
		stmts.system, generated.system = "postgresql", "postgresql"
		generated.rebind = dollarPlaceholders
	}
	drv := &driver{dialect: src.dialect, pool: pool, stmts: stmts, txs: new(atomic.Int64)}
	if src.dialect == migrate.SQLite {
		drv.writeLock = sqliteWrites
	}
	drv.Conn = entsql.Conn{ExecQuerier: dbConn{stmts}}
	db := &DB{
		SQL:       pool,
		driver:    drv,
		Dialect:   src.dialect,
		stmts:     stmts,
		generated: generated,
		writeLock: drv.writeLock,
		txs:       drv.txs,
		idle:      idle,
	}
	if src.dialect == migrate.SQLite {
		db.queues = &searchQueues{}
		db.stopCheckpoints = checkpoints(pool, checkpointEvery, checkpointIdle, restartFrames, sqliteWrites, db.indexQueues)
	}
	return db, nil
}

// checkServer checks that the database answers and, on PostgreSQL, is a
// primary; a replica is checked to be PostgreSQL only, and is connected to
// when read.
func checkServer(ctx context.Context, pool *sql.DB, src source, cfg Config) error {
	switch {
	case cfg.Replica && src.dialect != migrate.Postgres:
		return fmt.Errorf("replica URL %s: a read replica is a PostgreSQL standby (postgres://…)", redact(cfg.URL))
	case cfg.Replica:
		return nil
	}
	if err := pool.PingContext(ctx); err != nil {
		return fmt.Errorf("connecting to %s: %w", redact(cfg.URL), Classify(ctx, err))
	}
	if src.dialect != migrate.Postgres {
		return nil
	}
	standby, err := inRecovery(ctx, pool)
	if err == nil && standby {
		err = errStandby
	}
	if err != nil {
		return fmt.Errorf("%s: %w", redact(cfg.URL), Classify(ctx, err))
	}
	return nil
}

// defaultPoolSize sizes the pool for the machine. PostgreSQL overlaps network
// waits, so it gets more connections than cores; SQLite in process is bound
// by the CPU and a single writer.
func defaultPoolSize(dialect string) int {
	n := runtime.GOMAXPROCS(0)
	if dialect == migrate.Postgres {
		return max(8, 4*n)
	}
	return max(4, 2*n)
}

// Driver is ent's dialect.Driver over the database: its statements are
// prepared once and reused, and on SQLite its write transactions take the
// same in-process lock as the service's. The service's binary does not link
// ent's generated client (its compile is most of a rebuild's time); tests
// make one with ent.NewClient(ent.Driver(db.Driver())) (dbtest.Ent).
func (db *DB) Driver() dialect.Driver { return db.driver }

// Migrations returns the migration files for the database's dialect.
func (db *DB) Migrations() ([]migrate.Migration, error) {
	return migrations.For(db.Dialect)
}

// Migrate applies the pending migrations and returns them.
func (db *DB) Migrate(ctx context.Context) ([]migrate.Migration, error) {
	set, err := db.Migrations()
	if err != nil {
		return nil, err
	}
	return migrate.Apply(ctx, db.SQL, db.Dialect, set)
}

// ErrPending reports a database that needs migrations the caller chose not to apply.
var ErrPending = errors.New("the database needs migrations")

// CheckSchema fails unless the database has applied exactly the migrations
// this binary knows: a newer database is refused, and so is one with
// migrations pending.
func (db *DB) CheckSchema(ctx context.Context) error {
	set, err := db.Migrations()
	if err != nil {
		return err
	}
	todo, err := migrate.Pending(ctx, db.SQL, db.Dialect, set)
	if err != nil {
		return err
	}
	if len(todo) > 0 {
		return fmt.Errorf("%w: %d pending, starting with %s (run `records migrate`)", ErrPending, len(todo), todo[0].Name)
	}
	return nil
}

// Each runs a read written with ? placeholders (rewritten for PostgreSQL)
// as a statement prepared once per text and reused, and calls scan for each
// row, for at most max rows (all when max < 0; stopping at max spares the
// step that would only discover the end). The generated read paths use it
// instead of ent, whose query building costs as much as the query on a
// primary-key lookup. Errors are classified (see Classify). A read whose
// connection was lost before it scanned a row is run once more, on a new
// connection, within ctx's time: a read is safe to repeat (writes never
// are; see lost.go).
func (db *DB) Each(ctx context.Context, max int, query string, args []any, scan func(*sql.Rows) error) error {
	n, err := db.each(ctx, max, query, args, scan)
	if n == 0 && errors.Is(err, ErrConnectionLost) && ctx.Err() == nil {
		db.idle.dropNow()
		_, err = db.each(ctx, max, query, args, scan)
	}
	return err
}

// Holds tells whether the read text, which answers one row of one
// boolean, answers true: the check a background loop makes before a write
// that has nothing to do when it does not. On SQLite a write that changes
// nothing still takes and lets go the process's write lock, which counts
// as a write (Writes): a loop writing so at each poll kept the
// checkpointer from ever seeing the database quiet (its FTS5 merger from
// finishing a merge) and the search's samples from being kept.
func (db *DB) Holds(ctx context.Context, text string, args ...any) (bool, error) {
	return holds(ctx, db, text, args...)
}

// holds is Holds read through r: a DB, or a Writer for a read inside a
// write.
func holds(ctx context.Context, r reader, text string, args ...any) (bool, error) {
	var yes bool
	err := r.Each(ctx, 1, text, args, func(rows *sql.Rows) error { return rows.Scan(&yes) })
	return yes, err
}

// each is one try of Each: it returns how many rows it scanned.
func (db *DB) each(ctx context.Context, max int, query string, args []any, scan func(*sql.Rows) error) (n int, err error) {
	rows, err := dbConn{db.generated}.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return scanRows(ctx, rows, max, scan)
}

// Exec runs a statement written with ? placeholders, prepared once per
// text and reused, as Each does. Errors are classified.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return dbConn{db.generated}.ExecContext(ctx, query, args...)
}

// Statements counts the statements run since the database was opened,
// ent's and the generated SQL's (transactions' BEGIN and COMMIT not
// included).
func (db *DB) Statements() int64 { return db.stmts.ran.Load() + db.generated.ran.Load() }

// Transactions counts the transactions begun since the database was opened.
func (db *DB) Transactions() int64 { return db.txs.Load() }

// Postgres tells whether the database is PostgreSQL (else SQLite).
func (db *DB) Postgres() bool { return db.Dialect == migrate.Postgres }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return Classify(ctx, db.SQL.PingContext(ctx)) }

// errStandby: the server is a standby, which takes no writes.
var errStandby = &classified{ErrUnavailable, errors.New("the server is a standby (in recovery), which takes no writes: " +
	"name the primary, or every host with target_session_attrs=read-write")}

// Writable checks that the database answers and takes writes: on
// PostgreSQL, that the server is not a standby — during a failover the old
// primary is gone and the new one not yet promoted.
func (db *DB) Writable(ctx context.Context) error {
	if !db.Postgres() {
		return db.Ping(ctx)
	}
	standby, err := inRecovery(ctx, db.SQL)
	if err == nil && standby {
		err = errStandby
	}
	return Classify(ctx, err)
}

// inRecovery tells whether the server is a standby.
func inRecovery(ctx context.Context, pool *sql.DB) (bool, error) {
	var standby bool
	err := pool.QueryRowContext(ctx, `SELECT pg_is_in_recovery()`).Scan(&standby)
	return standby, err
}

// Close closes the cached statements and the pool.
func (db *DB) Close() error {
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
	}
	return errors.Join(db.stmts.close(), db.generated.close(), db.SQL.Close())
}

// driver is ent's dialect.Driver over the statement cache. For SQLite it also
// serializes write transactions in process: SQLite has one writer, and
// waiting on a mutex is cheaper and fairer than its busy-retry loop.
type driver struct {
	entsql.Conn
	dialect   string
	pool      *sql.DB
	stmts     *stmtCache
	writeLock *fifoLock // nil for PostgreSQL
	txs       *atomic.Int64
}

func (d *driver) Dialect() string { return d.dialect }

func (d *driver) Close() error { return nil } // DB.Close owns the pool

func (d *driver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction; ent's client.BeginTx calls it.
func (d *driver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	unlock := func() {}
	if d.writeLock != nil && (opts == nil || !opts.ReadOnly) {
		if err := d.writeLock.LockContext(ctx); err != nil {
			return nil, err
		}
		unlock = sync.OnceFunc(d.writeLock.Unlock)
	}
	d.txs.Add(1)
	tx, err := d.pool.BeginTx(ctx, opts)
	if err != nil {
		unlock()
		return nil, Classify(ctx, err)
	}
	return &entsql.Tx{
		Conn: entsql.Conn{ExecQuerier: txConn{c: d.stmts, tx: tx}},
		Tx:   endTx{Tx: tx, done: unlock, ctx: ctx},
	}, nil
}

// endTx runs done once the transaction commits or rolls back, and
// classifies the errors of both.
type endTx struct {
	*sql.Tx
	done func()
	ctx  context.Context
}

func (t endTx) Commit() error {
	defer t.done()
	return Classify(t.ctx, t.Tx.Commit())
}

func (t endTx) Rollback() error {
	defer t.done()
	return Classify(t.ctx, t.Tx.Rollback())
}

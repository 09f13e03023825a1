package db

import (
	"context"
	"database/sql"
	"errors"

	"records/internal/tracing"
)

// Writer runs the statements of one write: on the pool, each its own
// autocommitted statement, or in a transaction. Statements are written
// with ? placeholders and run prepared once their text has been seen.
type Writer struct {
	db *DB
	tx *sql.Tx
	// unprepared are texts a transaction ran unprepared; they are
	// prepared once the transaction has ended (see Write).
	unprepared []string
}

// Write runs fn to write: in one transaction when inTx (all of it is
// written, or none), else each statement on its own. On SQLite one write
// runs at a time in the process, whichever database it writes: SQLite has
// one writer, waiting in a first-come queue (fifoLock) is cheaper and fairer
// than its busy loop, and the settings a write makes for its triggers are
// the process's (see settings.go). Errors are classified.
func (db *DB) Write(ctx context.Context, inTx bool, fn func(w *Writer) error) error {
	if db.writeLock != nil {
		if err := db.writeLock.LockContext(ctx); err != nil {
			return err
		}
		defer db.writeLock.Unlock()
		resetSettings()
	}
	w := &Writer{db: db}
	if !inTx {
		return fn(w)
	}
	db.txs.Add(1)
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return Classify(ctx, err)
	}
	w.tx = tx
	defer func() {
		// A panic in fn (a business rule's, say) writes nothing: the
		// transaction ends now, not when the request's context does.
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	err = fn(w)
	if err == nil {
		err = Classify(ctx, tx.Commit())
	} else if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
		err = errors.Join(err, Classify(ctx, rerr))
	}
	// Preparing takes a connection of its own, which a pool full of
	// transactions waiting to prepare would never give back: texts are
	// prepared only here, with no connection held.
	for _, text := range w.unprepared {
		_, _ = db.generated.get(ctx, text)
	}
	return err
}

// stmt returns the prepared statement of text for this write, or nil to
// run it unprepared.
func (w *Writer) stmt(ctx context.Context, text string) (*sql.Stmt, error) {
	c := w.db.generated
	c.ran.Add(1)
	if w.tx == nil {
		return c.get(ctx, text)
	}
	if st := c.cached(text); st != nil {
		return w.tx.StmtContext(ctx, st), nil
	}
	w.unprepared = append(w.unprepared, text)
	return nil, nil
}

// Query runs a statement that answers rows (INSERT … RETURNING) and calls
// scan for each, at most max (all when max < 0); it returns how many.
func (w *Writer) Query(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) (n int, err error) {
	ctx, end := tracing.Database(ctx, w.db.generated.system, text)
	defer func() { end(err) }()
	st, err := w.stmt(ctx, text)
	if err != nil {
		return 0, Classify(ctx, err)
	}
	var rows *sql.Rows
	switch {
	case st != nil:
		rows, err = st.QueryContext(ctx, args...)
	case w.tx != nil:
		rows, err = w.tx.QueryContext(ctx, w.db.generated.text(text), args...)
	default:
		rows, err = w.db.SQL.QueryContext(ctx, w.db.generated.text(text), args...)
	}
	if err != nil {
		return 0, Classify(ctx, err)
	}
	return scanRows(ctx, rows, max, scan)
}

// Exec runs a statement and returns the rows it affected.
func (w *Writer) Exec(ctx context.Context, text string, args ...any) (affected int64, err error) {
	ctx, end := tracing.Database(ctx, w.db.generated.system, text)
	defer func() { end(err) }()
	st, err := w.stmt(ctx, text)
	if err != nil {
		return 0, Classify(ctx, err)
	}
	var res sql.Result
	switch {
	case st != nil:
		res, err = st.ExecContext(ctx, args...)
	case w.tx != nil:
		res, err = w.tx.ExecContext(ctx, w.db.generated.text(text), args...)
	default:
		res, err = w.db.SQL.ExecContext(ctx, w.db.generated.text(text), args...)
	}
	if err != nil {
		return 0, Classify(ctx, err)
	}
	n, err := res.RowsAffected()
	return n, Classify(ctx, err)
}

// Each is Query for reading inside the write, as DB.Each reads outside:
// a transaction reads what it has written.
func (w *Writer) Each(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) error {
	_, err := w.Query(ctx, max, text, args, scan)
	return err
}

// Postgres tells whether the database is PostgreSQL (else SQLite).
func (w *Writer) Postgres() bool { return w.db.Postgres() }

package db

import (
	"context"
	"database/sql"
	"errors"
	"strings"
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
	// changed tells whether a statement changed a row: one that affected
	// rows (Exec), or answered some (Query: INSERT … RETURNING). A read
	// (Each, or a SELECT) and a statement that failed or matched nothing
	// change none. ran tells whether any statement ran through the Writer:
	// a write that ran none may have written another way (on a connection
	// of its own), and is counted.
	changed, ran bool
}

// Write runs fn to write: in one transaction when inTx (all of it is
// written, or none), else each statement on its own. On SQLite one write
// runs at a time in the process, whichever database it writes: SQLite has
// one writer, waiting in a first-come queue (fifoLock) is cheaper and fairer
// than its busy loop, and the settings a write makes for its triggers are
// the process's (see settings.go). Errors are classified.
//
// The lock counts a write when it is let go (DB.Writes) only if a row
// was changed: a write refused under it (a duplicate key, a version that
// does not match, a transaction rolled back) leaves the search's samples
// kept and the checkpointer at rest, as the loops that find nothing to do
// do (fifoLock.UnlockUnwritten). A write that ran no statement through w
// is counted: it may have written on a connection of its own (the NATS
// publisher's position).
func (db *DB) Write(ctx context.Context, inTx bool, fn func(w *Writer) error) error {
	w := &Writer{db: db}
	if db.writeLock != nil {
		if err := db.writeLock.LockContext(ctx); err != nil {
			return err
		}
		defer func() {
			if w.changed || !w.ran {
				db.writeLock.Unlock()
			} else {
				db.writeLock.UnlockUnwritten()
			}
		}()
		resetSettings()
	}
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
			w.changed = false
			panic(p)
		}
	}()
	err = fn(w)
	if err == nil {
		// A commit that fails is counted all the same: its outcome may be
		// unknown, and a write counted that was not costs only a sample.
		err = Classify(ctx, tx.Commit())
	} else {
		w.changed = false // rolled back
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			err = errors.Join(err, Classify(ctx, rerr))
		}
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
	if w.tx == nil {
		return c.get(ctx, text)
	}
	if st := c.cached(text); st != nil {
		return w.tx.StmtContext(ctx, st), nil
	}
	w.unprepared = append(w.unprepared, text)
	return nil, nil
}

// runner runs the write's statements that are not prepared: its
// transaction, or the pool.
func (w *Writer) runner() interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
} {
	if w.tx != nil {
		return w.tx
	}
	return w.db.SQL
}

// Query runs a statement that answers rows (INSERT … RETURNING) and calls
// scan for each, at most max (all when max < 0); it returns how many.
func (w *Writer) Query(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) (int, error) {
	n, err := w.query(ctx, max, text, args, scan)
	w.changed = w.changed || n > 0 && !selects(text)
	return n, err
}

// query is Query without counting what it answers as changed rows.
func (w *Writer) query(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) (int, error) {
	w.ran = true
	c := w.db.generated
	rows, err := run(ctx, c, text, w.stmt,
		func(ctx context.Context, st *sql.Stmt) (*sql.Rows, error) { return st.QueryContext(ctx, args...) },
		func(ctx context.Context) (*sql.Rows, error) {
			return w.runner().QueryContext(ctx, c.text(text), args...)
		})
	if err != nil {
		return 0, err
	}
	return scanRows(ctx, rows, max, scan)
}

// Exec runs a statement and returns the rows it affected.
func (w *Writer) Exec(ctx context.Context, text string, args ...any) (int64, error) {
	w.ran = true
	c := w.db.generated
	res, err := run(ctx, c, text, w.stmt,
		func(ctx context.Context, st *sql.Stmt) (sql.Result, error) { return st.ExecContext(ctx, args...) },
		func(ctx context.Context) (sql.Result, error) {
			return w.runner().ExecContext(ctx, c.text(text), args...)
		})
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	w.changed = w.changed || (n != 0 || err != nil) && !selects(text)
	return n, Classify(ctx, err)
}

// selects tells whether text is a SELECT, which changes no row (SQLite
// answers a SELECT's rows affected with the last change the connection
// made before it).
func selects(text string) bool {
	text = strings.TrimLeft(text, " \t\n")
	return len(text) >= 6 && strings.EqualFold(text[:6], "SELECT")
}

// Each is Query for reading inside the write, as DB.Each reads outside:
// a transaction reads what it has written.
func (w *Writer) Each(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) error {
	_, err := w.query(ctx, max, text, args, scan)
	return err
}

// Postgres tells whether the database is PostgreSQL (else SQLite).
func (w *Writer) Postgres() bool { return w.db.Postgres() }

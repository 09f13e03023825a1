package db

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"records/internal/spec"
)

// SQLite indexes a new record after its commit (package gen, search_queue.go):
// the insert trigger notes its rowid in its table's queue, and a batch
// writes the documents of every queued record into the FTS5 table in one
// statement — one segment for the batch, where a create that indexed its
// own record flushed one (some six pages) — then empties the queue, in one
// transaction under the process's write lock. The checkpointer runs the
// batches after writes (every checkpointEvery), and a search runs its
// table's first when the queue holds anything (SearchReady), so that it
// sees every record committed before it. The queue is a table: a record
// queued when the process stopped is indexed by the next one.

// searchBatch is the statements indexing one table's queue: all of it
// (index, empty), or, where the queue's view carries each entry's rowid
// (spec.SearchQueued; migrations since 0027), its first searchBatchRows
// records at a time (bound, then indexTo and emptyTo up to the bound).
type searchBatch struct {
	check, index, empty     string
	bound, indexTo, emptyTo string
}

// searchBatchRows is the records one batch indexes at most: a queue
// filled by hand (rows inserted through SQL, a bulk import) is indexed a
// part at a time, each in a write of its own, so that no writer waits
// behind one statement over all of it (in the sqlite3 shell, 200,000
// returns took 3.6 s in one; 1,000 take 10–30 ms).
const searchBatchRows = 1000

// searchQueues are the batches of a database's searched tables, made of
// the queues' views as the schema (of version schema) has them.
type searchQueues struct {
	mu      sync.Mutex
	schema  int64
	tables  []string
	batches map[string]searchBatch
}

// batch is the statements of table's batch (ok false when the table has
// no queue: a database of older migrations).
func (q *searchQueues) batch(ctx context.Context, r reader, table string) (searchBatch, bool, error) {
	q.mu.Lock()
	b, ok := q.batches[table]
	q.mu.Unlock()
	if ok {
		return b, true, nil
	}
	var cols []string
	err := r.Each(ctx, -1, `SELECT "name" FROM pragma_table_info(?) ORDER BY "cid"`, []any{spec.SearchPending(table)},
		func(rows *sql.Rows) error {
			var c string
			err := rows.Scan(&c)
			cols = append(cols, spec.Ident(c))
			return err
		})
	if err != nil || len(cols) == 0 {
		return searchBatch{}, false, err
	}
	bounded := cols[len(cols)-1] == spec.Ident(spec.SearchQueued)
	if bounded {
		cols = cols[:len(cols)-1]
	}
	queue, list := spec.Ident(spec.SearchQueue(table)), strings.Join(cols, ", ")
	// In the order of rowids: FTS5 flushes its pending words at a rowid
	// lower than the last one's.
	index := `INSERT INTO ` + spec.Ident(spec.SearchTable(table)) + `(` + list + `) SELECT ` + list +
		` FROM ` + spec.Ident(spec.SearchPending(table))
	b = searchBatch{
		check: `SELECT EXISTS (SELECT 1 FROM ` + queue + `)`,
		index: index + ` ORDER BY 1`,
		empty: `DELETE FROM ` + queue,
	}
	if bounded {
		b.bound = `SELECT "rowid" FROM ` + queue + ` ORDER BY "rowid" LIMIT 1 OFFSET ` + strconv.Itoa(searchBatchRows-1)
		b.indexTo = index + ` WHERE ` + spec.Ident(spec.SearchQueued) + ` <= ? ORDER BY 1`
		b.emptyTo = b.empty + ` WHERE "rowid" <= ?`
	}
	q.mu.Lock()
	if q.batches == nil {
		q.batches = map[string]searchBatch{}
	}
	q.batches[table] = b
	q.mu.Unlock()
	return b, true, nil
}

// reader runs reads: a DB or a Writer.
type reader interface {
	Each(ctx context.Context, max int, query string, args []any, scan func(*sql.Rows) error) error
}

// SearchReady makes sure, on SQLite, that the search index of table holds
// every record committed: when its queue holds any, it indexes them first,
// under the write lock — or in w, the write the caller is in (nil when
// none), which holds it. On PostgreSQL, whose index is written with the
// record, it does nothing.
func (db *DB) SearchReady(ctx context.Context, w *Writer, table string) error {
	if db.writeLock == nil {
		return nil
	}
	var r reader = db
	if w != nil {
		r = w
	}
	_, err := db.indexQueue(ctx, r, w, table, false)
	return err
}

// indexQueue indexes table's queue when it holds records, read through
// r: in w when not nil, else a batch at a time, each in a write of its
// own, all of it, or one batch when once is set (the checkpointer's
// pass). It tells whether a batch ran (none for a table without a queue).
func (db *DB) indexQueue(ctx context.Context, r reader, w *Writer, table string, once bool) (bool, error) {
	b, ok, err := db.queues.batch(ctx, r, table)
	if err != nil || !ok {
		return false, err
	}
	queued, err := b.queued(ctx, r)
	if err != nil || !queued {
		return false, err
	}
	if w != nil {
		for more := true; more && err == nil; {
			more, err = b.run(ctx, w)
		}
		return true, err
	}
	for more := true; more; {
		err := db.Write(ctx, true, func(w *Writer) (err error) {
			more, err = b.run(ctx, w)
			return err
		})
		if err != nil || once {
			return true, err
		}
	}
	return true, nil
}

// queued tells whether the table's queue holds any record. The read is
// the queue's first row, run to its end whatever ctx: a cancellable context
// costs a statement two goroutines (database/sql's and the driver's), and
// every search page reads this (see engine's commonMatches).
func (b searchBatch) queued(ctx context.Context, r reader) (bool, error) {
	return holds(context.WithoutCancel(ctx), r, b.check)
}

// run indexes the queued records — the first searchBatchRows of them
// where the batch is bounded — and takes them out of the queue, in w. It
// tells whether records were left queued.
func (b searchBatch) run(ctx context.Context, w *Writer) (bool, error) {
	var bound int64 = -1
	if b.bound != "" {
		err := w.Each(ctx, 1, b.bound, nil, func(rows *sql.Rows) error { return rows.Scan(&bound) })
		if err != nil {
			return false, err
		}
	}
	index, empty, args := b.index, b.empty, []any(nil)
	if bound >= 0 {
		index, empty, args = b.indexTo, b.emptyTo, []any{bound}
	}
	if _, err := w.Exec(ctx, index, args...); err != nil {
		return false, err
	}
	_, err := w.Exec(ctx, empty, args...)
	return bound >= 0 && err == nil, err
}

// indexQueues runs a batch of every searched table whose queue holds
// records, each in a write of its own; the checkpointer runs it after
// writes (a queue longer than a batch is indexed over its next ticks,
// with checkpoints between). It answers how many batches ran.
func (db *DB) indexQueues(ctx context.Context) (int, error) {
	tables, err := db.queues.searched(ctx, db.SQL)
	if err != nil {
		return 0, err
	}
	ran, r := 0, poolReader{db.SQL}
	for _, table := range tables {
		did, err := db.indexQueue(ctx, r, nil, table, true)
		if err != nil {
			return ran, err
		}
		if did {
			ran++
		}
	}
	return ran, nil
}

// searched are the tables that have a search queue, read again when the
// schema's version moves (a migration may make or drop one while the
// process runs); the batches are then made again too.
func (q *searchQueues) searched(ctx context.Context, pool *sql.DB) ([]string, error) {
	var schema int64
	if err := pool.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&schema); err != nil {
		return nil, err
	}
	q.mu.Lock()
	if schema == q.schema && q.tables != nil {
		defer q.mu.Unlock()
		return q.tables, nil
	}
	q.mu.Unlock()
	suffix := spec.SearchTableSuffix + spec.SearchPendingSuffix
	tables, err := poolNames(ctx, pool, `SELECT "name" FROM sqlite_master WHERE "type" = 'view' AND "name" LIKE ? ESCAPE '\' ORDER BY "name"`,
		`%`+strings.ReplaceAll(suffix, "_", `\_`))
	if err != nil {
		return nil, err
	}
	for i, name := range tables {
		tables[i] = strings.TrimSuffix(name, suffix)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.schema, q.tables, q.batches = schema, tables, nil
	return tables, nil
}

// poolReader runs the checkpointer's reads straight on the pool: work of
// the background, kept out of the statements requests are counted for
// (DB.Statements), as the checkpoints' own statements are.
type poolReader struct{ pool *sql.DB }

func (p poolReader) Each(ctx context.Context, max int, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := p.pool.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	_, err = scanRows(ctx, rows, max, scan)
	return err
}

// poolNames reads a list of names (one column) straight on the pool.
func poolNames(ctx context.Context, pool *sql.DB, query string, args ...any) ([]string, error) {
	names := []string{}
	err := poolReader{pool}.Each(ctx, -1, query, args, func(rows *sql.Rows) error {
		var name string
		err := rows.Scan(&name)
		names = append(names, name)
		return err
	})
	return names, err
}

// Writes counts the writes this process made to a SQLite database (its
// write lock let go after a change: see Write), 0 on PostgreSQL: what a
// cache of reads that only steer a plan is keyed by (engine's samples of
// a word), and what wakes the checkpointer.
func (db *DB) Writes() uint64 {
	if db.writeLock == nil {
		return 0
	}
	return db.writeLock.Freed()
}

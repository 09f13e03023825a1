package db

import (
	"context"
	"database/sql"
	"slices"

	"records/internal/spec"
)

// SQLite's FTS5 writes each commit that indexes a record as a segment (a
// b-tree) of its own and merges them as they pile up (its automerge), which
// leaves a table written one record a commit in some 5–23 segments of every
// size. A search that looks records up in the index by rowid
// (query.Probe) opens every segment for each record; the segments of a few
// hundred to a few thousand records, whose doclist of a common word spans
// one to four pages and has no index to skip them by, are walked whole:
// looking 101 records up took 5–49 ms of CPU at 100,000 returns, 1–2 ms
// once the table was merged into one segment (docs/performance.md). So the
// checkpointer keeps the tables merged, a bounded step at a time.

// ftsMergePages bounds one merge step: the pages of merged index FTS5
// writes in it (the 'merge' command's budget), 2–3 ms of a core on
// average: the longest a write waits behind a step.
const ftsMergePages = 16

// ftsTailShare is when a table is merged into one segment again while the
// process writes: once its segments but the largest hold 1/ftsTailShare of
// the largest's pages. Merging every segment rewrites the largest too:
// at 1/8, 100,000 single-row inserts took 15–20 % more CPU and their
// lookups were hardly cheaper (a tail of 1/8 still holds the mid-sized
// segments); at 1/2 the inserts cost what they cost unmerged, within the
// runs' spread. So while the process writes, only a tail as large as the
// seed's (or a restored copy's) is merged.
const ftsTailShare = 2

// ftsQuietShare is the same share once the process has written nothing
// for a second (checkpointIdle): the CPU is then the reads', and a table
// left with a smaller tail — which still holds the segments lookups pay
// most for — is merged too. 1/64 of the largest, so that a trickle of
// writes does not have the whole index rewritten after each.
const ftsQuietShare = 64

// wantsMerge tells whether a table of this shape is worth a merge step: a
// merge is under way (one a step began, or FTS5's automerge), or its other
// segments have grown to 1/ftsTailShare of its largest (1/ftsQuietShare
// when quiet: nothing written for a while).
func (s FTSShape) wantsMerge(quiet bool) bool {
	if s.Merging {
		return true
	}
	if len(s.Pages) < 2 {
		return false
	}
	largest, all := slices.Max(s.Pages), 0
	for _, p := range s.Pages {
		all += p
	}
	share := ftsTailShare
	if quiet {
		share = ftsQuietShare
	}
	return (all-largest)*share >= largest
}

// ftsMerger keeps the FTS5 tables of a SQLite database merged. The
// checkpointer runs a pass after its checkpoint; a pass reads every
// table's shape in one statement, taking no lock and writing nothing, and
// runs at most one merge step on each table that wants one, each step its
// own write under the process's write lock: a create waits for one step
// at most. A step's write counts as a write, so the checkpointer's next
// tick (30 ms on) runs the next pass, until nothing is left to merge.
type ftsMerger struct {
	pool *sql.DB
	lock *fifoLock
	// tables are the FTS5 tables as of the schema's version schema (a
	// migration may make or drop one while the process runs).
	tables []string
	schema int64
}

// pass runs one merge step on each table that wants one and answers how
// many steps wrote; quiet tells that nothing was written for a while.
func (m *ftsMerger) pass(ctx context.Context, quiet bool) (int, error) {
	var schema int64
	if err := m.pool.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&schema); err != nil {
		return 0, err
	}
	if schema != m.schema {
		tables, err := ftsTables(ctx, m.pool)
		if err != nil {
			return 0, err
		}
		m.tables, m.schema = tables, schema
	}
	if len(m.tables) == 0 {
		return 0, nil
	}
	shapes, err := readFTSShapes(ctx, m.pool, m.tables)
	if err != nil {
		return 0, err
	}
	steps := 0
	for i, table := range m.tables {
		if !shapes[i].wantsMerge(quiet) {
			continue
		}
		wrote, err := m.step(ctx, table, quiet)
		if err != nil {
			return steps, err
		}
		if wrote {
			steps++
		}
	}
	return steps, nil
}

// step runs one merge step on table under the write lock: it continues a
// merge under way, else starts one of every segment. The shape is read again
// under the lock, so that the process's own writes cannot have finished
// the merge meanwhile; another process sharing the file may start a merge
// of all beside it, which FTS5 then begins again (its work wasted, the
// index sound: each step is an ordinary write transaction). It answers
// whether the step wrote; a step that did not counts no write.
func (m *ftsMerger) step(ctx context.Context, table string, quiet bool) (wrote bool, err error) {
	// The connection first: under a read load the pool's connections are
	// the requests', and the lock is not held while one is waited for.
	conn, err := m.pool.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	if err := m.lock.LockContext(ctx); err != nil {
		return false, err
	}
	defer func() {
		if wrote || err != nil {
			m.lock.Unlock()
		} else {
			m.lock.UnlockUnwritten()
		}
	}()
	shape, err := ReadFTSShape(ctx, conn, table)
	if err != nil || !shape.wantsMerge(quiet) {
		return false, err
	}
	if shape.Merging {
		// A merge under way goes on, unless FTS5 picks a level below it
		// with fewer segments than its usermerge and so does nothing
		// (until a write merges on): then every level is merged anew.
		if wrote, err := ftsMerge(ctx, conn, table, ftsMergePages); wrote || err != nil {
			return wrote, err
		}
	}
	return ftsMerge(ctx, conn, table, -ftsMergePages)
}

// ftsMerge runs FTS5's 'merge' command on table with budget pages (a
// negative budget first puts every level's segments on one) and answers
// whether it wrote: FTS5 changes no row when it finds nothing to merge.
func ftsMerge(ctx context.Context, conn *sql.Conn, table string, budget int) (bool, error) {
	var before, after int64
	t := spec.Ident(table)
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, err
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, "rank") VALUES ('merge', ?)`, budget); err != nil {
		return false, err
	}
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, err
	}
	return after-before >= 2, nil
}

// MergeFTS runs the FTS5 merge pass the checkpointer runs (one step on
// each table that wants one, quiet as after a second without writes), for
// the tools that want a table merged without waiting; it answers how many
// steps wrote. On PostgreSQL it does nothing.
func (db *DB) MergeFTS(ctx context.Context, quiet bool) (int, error) {
	if db.writeLock == nil {
		return 0, nil
	}
	m := ftsMerger{pool: db.SQL, lock: db.writeLock}
	return m.pass(ctx, quiet)
}

// ftsTables are the database's FTS5 tables.
func ftsTables(ctx context.Context, pool *sql.DB) ([]string, error) {
	return poolNames(ctx, pool, `SELECT "name" FROM sqlite_master
WHERE "type" = 'table' AND "sql" LIKE 'CREATE VIRTUAL TABLE % USING fts5(%' ORDER BY "name"`)
}

package engine

import (
	"context"
	"database/sql"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/spec"
)

// restore takes the record with the id out of the trash, with every record
// of its batch — the children its delete cascaded to, or the parent whose
// delete cascaded to it (DESIGN §17) — under If-Match: 200 with the record
// at its next version; 404 when it is not in the trash; 409 naming the
// member when a unique value was taken meanwhile, nothing restored.
func (op *Op[E]) restore(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	if err := op.onlyID(req, "a restore takes only the id"); err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	var rec *E
	var version int64 // the record's, in the trash
	err = s.Write(ctx, true, func(ctx context.Context, w Writer) error {
		batch, v, err := op.restorable(ctx, w, team, req)
		version = v
		if err != nil {
			return err
		}
		if w.Postgres() {
			// Restores of one batch take turns, and read it again in
			// turn: the second of two finds it restored (404, or 412
			// under If-Match) rather than restoring nothing and
			// answering 200, and none waits on a row another holds.
			if _, err := w.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, batchLock(team, batch)); err != nil {
				return err
			}
			if again, _, err := op.restorable(ctx, w, team, req); err != nil || again != batch {
				return cmpErr(err, op.notInTrash(req))
			}
		}
		if err := op.parentTrashed(ctx, s, w, team, batch); err != nil {
			return err
		}
		for _, table := range s.family(op.Res.Table) {
			// A restore is a change: it writes the update stamps too.
			var set strings.Builder
			args := s.byTable(table).stamps().writeSet(&set, nil)
			_, err := w.Exec(ctx, `UPDATE `+spec.Ident(table)+` SET `+set.String()+`"deleted_at" = NULL, "deleted_by" = NULL, "trash_batch" = NULL, `+
				`"version" = "version" + 1 WHERE "trash_batch" = ? AND "team_id" = ?`, append(args, batch, team)...)
			if err != nil {
				return err
			}
		}
		rec, _, err = find(ctx, w, op.Res, req.id)
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	// The rules hear the restore of the record asked for, as a delete's
	// hear the record deleted, not the rest of its batch.
	afterCommit(ctx, s, op.Res, team, req.id, "restored", version+1)
	if rec == nil { // restored, then out of the role's read
		return 0, nil, notFound(op.Res.Object, req.id)
	}
	r, err := op.written(ctx, s, team, rec, false)
	return http.StatusOK, r, err
}

// restorable reads the batch and version of the record req names in the
// trash: 404 when it is not there (412 under If-Match), 412 when it is at
// a version If-Match does not list.
func (op *Op[E]) restorable(ctx context.Context, w Writer, team int, req *request) (string, int64, error) {
	batch, version, found, err := op.trashed(ctx, w, team, req.id)
	switch {
	case err != nil:
		return "", 0, err
	case !found:
		return "", 0, op.notInTrash(req)
	case req.ifMatch != nil && !req.ifMatch.matches(version):
		return "", 0, req.ifMatch.failed(op.Res.Object, req.id)
	}
	return batch, version, nil
}

// notInTrash is the problem of a restore of a record not in the trash.
func (op *Op[E]) notInTrash(req *request) error {
	if req.ifMatch != nil && !req.ifMatch.exclude {
		return req.ifMatch.failed(op.Res.Object, req.id)
	}
	return problem.New(problem.NotFound, "no %s in the trash has id %q", op.Res.Object, req.id)
}

// trashed reads the batch and version of the record with id in the trash,
// as the request's role may restore it.
func (op *Op[E]) trashed(ctx context.Context, w Writer, team int, id string) (batch string, version int64, found bool, err error) {
	cond, args := rowScope(withTrash(ctx, TrashOnly), op.Res, policy.Restore, team, []any{id})
	var b sql.NullString
	n, err := w.Query(ctx, 1, `SELECT "trash_batch", "version" FROM `+spec.Ident(op.Res.Table)+` WHERE "id" = ? AND `+cond, args,
		func(rows *sql.Rows) error { return rows.Scan(&b, &version) })
	return b.String, version, n > 0 && b.Valid, err
}

// parentTrashed refuses to restore a batch whose records name a parent
// that stays in the trash (another batch's): 409 naming the member.
func (op *Op[E]) parentTrashed(ctx context.Context, s *Service, w Writer, team int, batch string) error {
	for _, p := range s.parentsOf(op.Res.Table) {
		found := false
		_, err := w.Query(ctx, 1, `SELECT 1 FROM `+spec.Ident(op.Res.Table)+` AS "c" JOIN `+spec.Ident(p.Table)+
			` AS "p" ON "p"."id" = "c".`+spec.Ident(p.Column)+` WHERE "c"."trash_batch" = ? AND "c"."team_id" = ? AND "p"."deleted_at" IS NOT NULL`+
			` AND "p"."trash_batch" <> ?`, []any{batch, team, batch}, func(*sql.Rows) error { found = true; return nil })
		if err != nil {
			return err
		}
		if found {
			member := op.Res.memberOf(p.Column)
			return &problem.Error{Code: problem.Conflict, Detail: "the record's parent is in the trash: restore it first",
				Members: []problem.MemberError{{Member: member, Problem: "names a record in the trash"}}}
		}
	}
	return nil
}

// parentsOf are the parents of the resource whose table is table: each
// as the parent's table and the column naming it.
func (s *Service) parentsOf(table string) []Cascade {
	var out []Cascade
	for _, r := range s.resources {
		d := r.(Described)
		for _, c := range d.cascades() {
			if c.Table == table {
				out = append(out, Cascade{Table: d.table(), Column: c.Column})
			}
		}
	}
	slices.SortFunc(out, func(a, b Cascade) int { return strings.Compare(a.Table, b.Table) })
	return out
}

// byTable is the resource whose table is table.
func (s *Service) byTable(table string) Described {
	for _, r := range s.resources {
		if d := r.(Described); d.table() == table {
			return d
		}
	}
	panic("engine: no resource has the table " + table)
}

// objectOf is the object name of the resource whose table is table.
func (s *Service) objectOf(table string) string { return s.byTable(table).object() }

// batchLock is the advisory lock of a batch in the trash on PostgreSQL.
func batchLock(team int, batch string) int64 {
	h := fnv.New64a()
	h.Write([]byte("trash:" + strconv.Itoa(team) + ":" + batch))
	return int64(h.Sum64())
}

// family is table, the tables of its ancestors and of its descendants: where
// the records of a batch holding one of its records may be. Parents come
// before their children, the order in which a delete writes them (and the
// database cascades a purge), so that writes of one batch lock its rows in
// one order.
func (s *Service) family(table string) []string {
	out := s.kin(table)
	var depth func(t string, hops int) int // the longest line of parents
	depth = func(t string, hops int) int {
		d := 0
		for _, p := range s.parentsOf(t) {
			if p.Table != t && hops < len(out) {
				d = max(d, 1+depth(p.Table, hops+1))
			}
		}
		return d
	}
	slices.SortStableFunc(out, func(a, b string) int { return depth(a, 0) - depth(b, 0) })
	return out
}

// kin is table and the tables of its ancestors and descendants.
func (s *Service) kin(table string) []string {
	out := []string{table}
	for i := 0; i < len(out); i++ {
		for _, c := range s.cascadesOf(out[i]) {
			if !slices.Contains(out, c.Table) {
				out = append(out, c.Table)
			}
		}
	}
	for i := 0; i < len(out); i++ {
		for _, p := range s.parentsOf(out[i]) {
			if !slices.Contains(out, p.Table) {
				out = append(out, p.Table)
			}
		}
	}
	return out
}

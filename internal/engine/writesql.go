package engine

import (
	"context"
	"database/sql"
	"strings"

	"records/internal/db"
	"records/internal/policy"
	"records/internal/query"
	"records/internal/spec"
)

// Writer runs a write's statements (package db): on the pool, or in a
// transaction.
type Writer = *db.Writer

// writeReturning writes to b the RETURNING clause answering the record as
// Scan reads it.
func (res *Resource[E]) writeReturning(b *strings.Builder) {
	b.WriteString(" RETURNING ")
	b.WriteString(res.selectList())
}

// statementRoom is what a write's statement text is given to start with:
// most fit, so building one grows nothing.
const statementRoom = 1024

// insertSQL is the statement creating a record with id for team from v,
// an INSERT … SELECT whose condition sets the events' meta (meta.go) and
// checks the parents named: it inserts nothing unless each is a record of
// the team. (PostgreSQL needs the SELECT's values typed, having no column
// to take a type from.)
// upsert, when not nil, makes it update the record with the id instead if
// it exists in the team: the statement's ON CONFLICT clause, which writes
// only if each of fixed's columns (immutable members) keeps its value, and
// whose row takes the columns of current (required members the body left
// out) from the existing record, inserting nothing when there is none.
// more, when not nil, is one more condition.
func insertSQL[E any](d query.Dialect, res *Resource[E], id string, team int, v *Values, parents []ParentRef, upsert *upsertSQL, meta string, more *condition) (string, []any) {
	var b strings.Builder
	b.Grow(statementRoom)
	args := make([]any, 0, len(v.args)+3+2*len(parents))
	b.WriteString(`INSERT INTO `)
	spec.WriteIdent(&b, res.Table)
	b.WriteString(` ("id", "team_id"`)
	for _, c := range v.cols {
		b.WriteString(", ")
		spec.WriteIdent(&b, c)
	}
	var current []string
	if upsert != nil {
		current = upsert.current
	}
	for _, c := range current {
		b.WriteString(", ")
		spec.WriteIdent(&b, c)
	}
	b.WriteString(")")
	args = append(args, id, team)
	args = append(args, v.args...)
	cast := func(t string) string {
		if d == query.Postgres {
			return "?::" + t
		}
		return "?"
	}
	b.WriteString(" SELECT " + cast("text") + ", " + cast("int8"))
	for _, t := range v.types {
		b.WriteString(", " + cast(t))
	}
	for _, c := range current {
		// The existing record's value: a required member the body left
		// out keeps it, and the row is inserted only where there is one.
		b.WriteString(", (SELECT ")
		spec.WriteIdent(&b, c)
		b.WriteString(" FROM ")
		spec.WriteIdent(&b, res.Table)
		b.WriteString(` WHERE "id" = ? AND ` + teamOnly + `)`)
		args = append(args, id, team)
	}
	b.WriteString(" WHERE 1 = 1")
	if len(current) > 0 {
		b.WriteString(" AND EXISTS (SELECT 1 FROM ")
		spec.WriteIdent(&b, res.Table)
		b.WriteString(` WHERE "id" = ? AND ` + teamOnly + `)`)
		args = append(args, id, team)
	}
	if more != nil {
		b.WriteString(more.text)
		args = append(args, more.args...)
	}
	args = metaCondition(&b, meta, args)
	args = parentConditions(&b, parents, team, args)
	if upsert != nil {
		args = upsert.writeConflict(&b, res.Table, args)
	}
	res.writeReturning(&b)
	return b.String(), args
}

// upsertSQL is what an upsert's ON CONFLICT clause writes: the members
// given (change), if the immutable ones given keep their values (fixed);
// current are the columns of the required members the body left out.
type upsertSQL struct {
	change, fixed *Values
	current       []string
}

// writeConflict writes the upsert's ON CONFLICT clause on table: the
// members given change a live record of the same team whose immutable
// members keep their values.
func (u *upsertSQL) writeConflict(b *strings.Builder, table string, args []any) []any {
	b.WriteString(` ON CONFLICT ("id") DO UPDATE SET `)
	args = u.change.writeSet(b, args)
	b.WriteString(`"version" = `)
	spec.WriteIdent(b, table)
	b.WriteString(`."version" + 1 WHERE `)
	spec.WriteIdent(b, table)
	b.WriteString(`."team_id" = excluded."team_id" AND `)
	spec.WriteIdent(b, table)
	b.WriteString(`."deleted_at" IS NULL`) // a trashed record's id stays taken
	for _, c := range u.fixed.cols {
		b.WriteString(" AND ")
		spec.WriteIdent(b, table)
		b.WriteString(".")
		spec.WriteIdent(b, c)
		b.WriteString(" IS NOT DISTINCT FROM excluded.")
		spec.WriteIdent(b, c)
	}
	return args
}

// updateSQL is the statement writing v to the record with id in team, when
// it is at a version pre lists, every parent it names is the team's and
// each of fixed's columns (immutable members given) keeps its value; the
// caller's role narrows it to the records it may update (rowScope).
func updateSQL[E any](ctx context.Context, res *Resource[E], id string, team int, v *Values, pre *precondition, parents []ParentRef, meta string, fixed *Values) (string, []any) {
	var b strings.Builder
	b.Grow(statementRoom)
	args := make([]any, 0, len(v.args)+3+len(parents)*2)
	b.WriteString(`UPDATE `)
	spec.WriteIdent(&b, res.Table)
	b.WriteString(` SET `)
	args = v.writeSet(&b, args)
	b.WriteString(`"version" = "version" + 1 WHERE "id" = ? AND `)
	cond, args := rowScope(ctx, res, policy.Update, team, append(args, id))
	b.WriteString(cond)
	args = versionCondition(&b, pre, args)
	args = metaCondition(&b, meta, args)
	args = parentConditions(&b, parents, team, args)
	args = fixedConditions(&b, fixed, args)
	res.writeReturning(&b)
	return b.String(), args
}

// writeSet writes v's columns as the assignments of an UPDATE's SET,
// each "column" = ? and a comma, and returns args with v's values.
func (v *Values) writeSet(b *strings.Builder, args []any) []any {
	for _, c := range v.cols {
		spec.WriteIdent(b, c)
		b.WriteString(" = ?, ")
	}
	return append(args, v.args...)
}

// fixedConditions hold an update back unless each immutable member given
// keeps its value.
func fixedConditions(b *strings.Builder, fixed *Values, args []any) []any {
	for i, c := range fixed.cols {
		b.WriteString(" AND ")
		spec.WriteIdent(b, c)
		b.WriteString(" IS NOT DISTINCT FROM ?")
		args = append(args, fixed.args[i])
	}
	return args
}

// condition is more of a statement's WHERE clause (" AND …") and its arguments.
type condition struct {
	text string
	args []any
}

// parentConditions hold a write back unless every parent it names is a
// record of team, not in the trash.
func parentConditions(b *strings.Builder, parents []ParentRef, team int, args []any) []any {
	for _, p := range parents {
		b.WriteString(` AND EXISTS (SELECT 1 FROM `)
		spec.WriteIdent(b, p.Table)
		b.WriteString(` WHERE "id" = ? AND ` + teamOnly + `)`)
		args = append(args, p.ID, team)
	}
	return args
}

// versionCondition narrows a write to the versions an If-Match lists, or
// away from those an If-None-Match lists.
func versionCondition(b *strings.Builder, pre *precondition, args []any) []any {
	if pre == nil {
		return args
	}
	if pre.any || len(pre.versions) == 0 {
		// If-Match: * holds for every record, a list of no version of ours
		// for none; If-None-Match (exclude) the other way round.
		if pre.any == pre.exclude {
			b.WriteString(" AND 1 = 0")
		}
		return args
	}
	not := ""
	if pre.exclude {
		not = " NOT"
	}
	b.WriteString(` AND "version"` + not + ` IN (?` + strings.Repeat(", ?", len(pre.versions)-1) + ")")
	for _, v := range pre.versions {
		args = append(args, v)
	}
	return args
}

// writeRecord runs a statement answering at most one record.
func writeRecord[E any](ctx context.Context, w Writer, res *Resource[E], text string, args []any) (*E, error) {
	var rec *E
	_, err := w.Query(ctx, 1, text, args, func(rows *sql.Rows) (err error) {
		rec, err = res.Scan(rows)
		return err
	})
	return rec, err
}

// insert creates the record of in for team, and what it embeds; it checks
// the parents it names when check (embedded children name a parent made in
// the same transaction).
func insert[E any](ctx context.Context, s *Service, w Writer, res *Resource[E], in Input[E], team int, check bool) (*E, error) {
	id, text, args, parents := insertStatement(ctx, s, res, in, team, check, nil)
	rec, err := writeRecord(ctx, w, res, text, args)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, missingParent(ctx, w, team, parents)
	}
	steps, err := in.Then(true)
	if err != nil {
		return nil, err
	}
	for _, step := range steps {
		if err := step(ctx, s, w, team, id); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// insertStatement is the statement creating the record of in for team (its
// id made if not given), and the parents it checks.
func insertStatement[E any](ctx context.Context, s *Service, res *Resource[E], in Input[E], team int, check bool, more *condition) (id, text string, args []any, parents []ParentRef) {
	id, ok := in.GivenID()
	if !ok {
		id = spec.NewID()
		in.SetID(id)
	}
	var v Values
	in.Values(&v, true)
	if check {
		parents = in.Parents()
	}
	text, args = insertSQL(s.Dialect, res, id, team, &v, parents, nil, eventMeta(ctx), more)
	return id, text, args, parents
}

// missingParent names the first of parents that is not a record of team.
func missingParent(ctx context.Context, w Writer, team int, parents []ParentRef) error {
	for _, p := range parents {
		found := false
		_, err := w.Query(ctx, 1, `SELECT 1 FROM `+spec.Ident(p.Table)+` WHERE "id" = ? AND `+teamOnly, []any{p.ID, team},
			func(*sql.Rows) error { found = true; return nil })
		if err != nil {
			return err
		}
		if !found {
			return Parent(false, nil, p.Member, p.Object, p.ID)
		}
	}
	return nil
}

// current reads the version of the record with id in team, if it exists
// (and a role's filter for pop lets it be seen).
func current[E any](ctx context.Context, w Writer, res *Resource[E], team int, id string, pop policy.Op) (int64, bool, error) {
	var v int64
	cond, args := rowScope(ctx, res, pop, team, []any{id})
	n, err := w.Query(ctx, 1, `SELECT "version" FROM `+spec.Ident(res.Table)+` WHERE "id" = ? AND `+cond, args,
		func(rows *sql.Rows) error { return rows.Scan(&v) })
	return v, n > 0, err
}

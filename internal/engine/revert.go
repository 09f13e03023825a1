package engine

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"records/internal/policy"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/wire"
)

// revert writes a new version of the record with the id whose members equal
// those it had at the version the body names (DESIGN §17), read from that
// version's event (§12), under If-Match: 200 with the new version; 409
// version_unavailable when that event is gone (or never was). Its event is
// an update that names the version in reverted_from.
func (op *Op[E]) revert(ctx context.Context, s *Service, req *request) (int, *Result[E], error) {
	if err := op.requireID(req); err != nil {
		return 0, nil, err
	}
	version, err := op.takeVersion(req)
	if err != nil {
		return 0, nil, err
	}
	team, err := teamOf(ctx)
	if err != nil {
		return 0, nil, err
	}
	var rec *E
	err = s.Write(ctx, mustCheck(ctx, op.Res, policy.Update), func(ctx context.Context, w Writer) error {
		image, found, err := versionImage(ctx, w, op.Res.Plural, team, req.id, version)
		switch {
		case err != nil:
			return err
		case !found:
			if _, exists, err := current(ctx, w, op.Res, team, req.id, policy.Update); err != nil || !exists {
				return cmpErr(err, notFound(op.Res.Object, req.id))
			}
			return problem.New(spec.VersionUnavailable, "the %s %q has no event of version %d: it is gone, or never was", op.Res.Object, req.id, version)
		}
		if err := missingParent(ctx, w, team, op.revertedParents(ctx, s, image)); err != nil {
			return err
		}
		text, args := op.revertSQL(ctx, s.Dialect, team, req, image, version)
		if rec, err = writeRecord(ctx, w, op.Res, text, args); err == nil && rec == nil {
			err = op.unwritten(ctx, w, team, req.id, req.ifMatch, nil, nil)
		}
		if err == nil {
			err = checkWritten(ctx, w, op.Res, team, []string{req.id}, policy.Update)
		}
		return err
	})
	if err != nil {
		return 0, nil, op.writeError(err)
	}
	committed(ctx, s, op.Res, team, req.id, rec)
	r, err := op.written(ctx, s, team, rec, false)
	return http.StatusOK, r, err
}

// cmpErr is err, or else alt.
func cmpErr(err error, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// takeVersion takes the version a revert names out of the body: a whole
// number from 1.
func (op *Op[E]) takeVersion(req *request) (int64, error) {
	var version int64
	given := false
	rest := req.record[:0]
	for _, m := range req.record {
		if m.name != "version" {
			rest = append(rest, m)
			continue
		}
		n, err := wire.Int64(m.value)
		if err != nil || n < 1 {
			return 0, problem.Member("version", "must be a whole number from 1: the version to go back to")
		}
		version, given = n, true
	}
	req.record = rest
	if err := op.onlyID(req, "a revert takes only the version"); err != nil {
		return 0, err
	}
	if !given {
		return 0, problem.Member("version", "is required: the version to go back to")
	}
	return version, nil
}

// versionImage reads the image of the record at version from its events:
// its creation, an update or a restore that left it at that version. A
// record erased for good (purged) and made again with its id starts
// anew: only the events after the last purge are its own.
func versionImage(ctx context.Context, r Reader, plural string, team int, id string, version int64) ([]byte, bool, error) {
	var image []byte
	found := false
	purged := plural + ".purged"
	err := r.Each(ctx, -1, `SELECT "type", "image" FROM "events" WHERE "team_id" = ? AND "record_id" = ? AND "type" IN (?, ?, ?, ?) ORDER BY "id"`,
		[]any{team, id, plural + ".created", plural + ".updated", plural + ".restored", purged}, func(rows *sql.Rows) error {
			var typ string
			var text sql.NullString
			if err := rows.Scan(&typ, &text); err != nil {
				return err
			}
			if typ == purged {
				image, found = nil, false
				return nil
			}
			if v, ok := imageVersion([]byte(text.String)); ok && text.Valid && v == version && !found {
				image, found = []byte(text.String), true
			}
			return nil
		})
	return image, found, err
}

// revertedParents are the parents image names in the members a revert
// writes. Each must be a record of the team out of the trash, as for any
// update: a parent trashed or erased since the version is refused (400
// naming the member), so that no live record names one in the trash.
func (op *Op[E]) revertedParents(ctx context.Context, s *Service, image []byte) []ParentRef {
	cols, err := wire.ParseObject(image)
	if err != nil {
		return nil
	}
	writable := op.revertable(ctx)
	var refs []ParentRef
	for _, p := range s.parentsOf(op.Res.Table) {
		i := slices.Index(op.Res.Columns, p.Column)
		if i < 0 || !writable(i) {
			continue
		}
		for _, c := range cols {
			if c.Name != p.Column {
				continue
			}
			if id, err := wire.Text(c.Value); err == nil {
				refs = append(refs, ParentRef{Member: op.Res.memberOf(p.Column), Object: s.objectOf(p.Table), Table: p.Table, ID: id})
			}
		}
	}
	return refs
}

// imageVersion reads the version an image holds.
func imageVersion(image []byte) (int64, bool) {
	cols, err := wire.ParseObject(image)
	if err != nil {
		return 0, false
	}
	for _, c := range cols {
		if c.Name == "version" {
			n, err := wire.Int64(c.Value)
			return n, err == nil
		}
	}
	return 0, false
}

// revertable tells, by index in Resource.Columns, the members a revert
// writes: every one for admin; for a role, those its update may write
// (the others stay as they are).
func (op *Op[E]) revertable(ctx context.Context) func(int) bool {
	a := accessOf(ctx)
	if a == nil {
		return func(int) bool { return true }
	}
	rule, ok := a.role.Rule(op.Res.Plural, policy.Update)
	return func(i int) bool { return ok && rule.Allows(op.Res.Fields[i].Member) }
}

// revertSQL is the UPDATE writing image's values of the record's columns
// (but its id and version, and those a role may not write) to the record
// with req's id, as an update: the role's scope, If-Match, and the
// event's meta with reverted_from.
func (op *Op[E]) revertSQL(ctx context.Context, d query.Dialect, team int, req *request, image []byte, version int64) (string, []any) {
	var b strings.Builder
	b.Grow(statementRoom)
	b.WriteString(`UPDATE `)
	spec.WriteIdent(&b, op.Res.Table)
	b.WriteString(` SET `)
	var args []any
	// What an update writes unasked — its update stamps (updated_at…) —
	// a revert writes too: it is a change of now, not of version N's
	// time, which a client reading changes since a time would miss.
	stamps := op.Res.stamps()
	args = stamps.writeSet(&b, args)
	writable := op.revertable(ctx)
	for i, c := range op.Res.Columns {
		if c == "id" || c == "version" || !writable(i) || slices.Contains(stamps.cols, c) {
			continue
		}
		spec.WriteIdent(&b, c)
		path := `'$.` + strconv.Quote(c) + `'`
		if d == query.Postgres {
			b.WriteString(` = (json_populate_record(NULL::` + spec.Ident(op.Res.Table) + `, ?::json)).`)
			spec.WriteIdent(&b, c)
			b.WriteString(", ")
			args = append(args, string(image))
			continue
		}
		// SQLite: an object or array (a JSON member) as JSON text, any
		// other value as the SQL value it stood for.
		b.WriteString(` = IIF(json_type(?, ` + path + `) IN ('object', 'array'), json_extract(?, ` + path + `), ? ->> ` + path + `), `)
		args = append(args, string(image), string(image), string(image))
	}
	b.WriteString(`"version" = "version" + 1 WHERE "id" = ? AND `)
	cond, args := rowScope(ctx, op.Res, policy.Update, team, append(args, req.id))
	b.WriteString(cond)
	args = versionCondition(&b, req.ifMatch, args)
	meta := eventMeta(ctx)
	meta = meta[:len(meta)-1] + `,"reverted_from":` + strconv.FormatInt(version, 10) + "}"
	args = metaCondition(&b, meta, args)
	op.Res.writeReturning(&b)
	return b.String(), args
}

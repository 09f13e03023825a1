package engine

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"records/internal/problem"
	"records/internal/spec"
)

// bulkChecks finds, before inserting, the ids given that are already taken
// (in any team: ids are unique across teams) and the parents that are not
// the team's, so that each fault names its element. The ids the service
// chose are new: they are not looked up.
func (op *Op[E]) bulkChecks(ctx context.Context, w Writer, team int, inputs []Input[E], ids, given []string) error {
	var errs []problem.MemberError
	taken, err := existing(ctx, w, op.Res.Table, given, 0)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if taken[id] {
			errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].id", i), Problem: "is already taken"})
		}
	}
	if len(errs) > 0 {
		return &problem.Error{Code: problem.Conflict, Detail: fmt.Sprintf("%d ids are already taken", len(errs)), Members: errs}
	}
	byTable := map[string][]string{}
	for _, in := range inputs {
		for _, p := range in.Parents() {
			byTable[p.Table] = append(byTable[p.Table], p.ID)
		}
	}
	found := map[string]map[string]bool{}
	for table, pids := range byTable {
		if found[table], err = existing(ctx, w, table, pids, team); err != nil {
			return err
		}
	}
	for i, in := range inputs {
		for _, p := range in.Parents() {
			if !found[p.Table][p.ID] {
				errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].%s", i, p.Member), Problem: fmt.Sprintf("no %s has id %q", p.Object, p.ID)})
			}
		}
	}
	if len(errs) > 0 {
		return problem.Members(errs)
	}
	return nil
}

// bulkConflict names the elements of a bulk create whose unique value (the
// member of the conflict err reports) is taken: by an element before it,
// or by a record (of any team: unique values are the table's). It is read
// after the write failed, outside it; nil when it finds no element (a
// record that took the value meanwhile has gone again), and the conflict
// is then answered unnamed.
func (op *Op[E]) bulkConflict(ctx context.Context, s *Service, err error, inputs []Input[E], ids []string) error {
	member := conflictMember(err, op.Res.Unique)
	column := ""
	for col, m := range op.Res.Unique {
		if m == member {
			column = col
		}
	}
	if column == "" {
		return nil
	}
	values := make([]string, len(inputs)) // each element's value, "" when none
	for i, in := range inputs {
		if column == "id" {
			values[i] = ids[i]
			continue
		}
		var v Values
		in.Values(&v, true)
		for k, c := range v.cols {
			if s, ok := v.args[k].(string); ok && c == column {
				values[i] = s
			}
		}
	}
	var errs []problem.MemberError
	first := map[string]int{}
	var asked []string
	for i, v := range values {
		if v == "" {
			continue
		}
		if j, dup := first[v]; dup {
			errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].%s", i, member), Problem: fmt.Sprintf("repeats [%d].%s", j, member)})
			continue
		}
		first[v] = i
		asked = append(asked, v)
	}
	if len(asked) > 0 {
		taken, err := existingValues(ctx, s.DB, op.Res.Table, column, asked, 0)
		if err != nil {
			return nil
		}
		for i, v := range values {
			if v != "" && taken[v] && first[v] == i {
				errs = append(errs, problem.MemberError{Member: fmt.Sprintf("[%d].%s", i, member), Problem: "is already taken"})
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b problem.MemberError) int { return compareIndexed(a.Member, b.Member) })
	return &problem.Error{Code: problem.Conflict, Detail: fmt.Sprintf("%s: %d values are already taken", member, len(errs)), Members: errs}
}

// compareIndexed orders member paths "[i].name" by their index.
func compareIndexed(a, b string) int {
	index := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(p[:strings.IndexByte(p, ']')], "["))
		return n
	}
	return index(a) - index(b)
}

// existing returns which of ids are records of table: of team, or of any
// team when team is 0. No ids, no query.
func existing(ctx context.Context, r Reader, table string, ids []string, team int) (map[string]bool, error) {
	return existingValues(ctx, r, table, "id", ids, team)
}

// existingValues returns which of values the column of table holds: in
// team's records not in the trash, or in any team's when team is 0 (the
// trash's too, for ids). No values, no query.
func existingValues(ctx context.Context, r Reader, table, column string, values []string, team int) (map[string]bool, error) {
	out := map[string]bool{}
	if len(values) == 0 {
		return out, nil
	}
	in, args := inIDs(r, column, values)
	text := `SELECT ` + spec.Ident(column) + ` FROM ` + spec.Ident(table) + ` WHERE ` + in
	if team != 0 {
		text += ` AND ` + teamOnly
		args = append(args, team)
	} else if column != "id" {
		// A trashed record keeps its id, and releases its other unique
		// values (DESIGN §17).
		text += liveOnly
	}
	err := r.Each(ctx, -1, text, args, func(rows *sql.Rows) error {
		var v string
		err := rows.Scan(&v)
		out[v] = true
		return err
	})
	return out, err
}

// maxParams bounds the parameters of one statement (SQLite's limit is
// 32766, PostgreSQL's 65535).
const maxParams = 30000

// bulkInsert inserts every input in statements of many rows, answering the
// records into records in input order (at maps ids to positions).
func bulkInsert[E any](ctx context.Context, w Writer, res *Resource[E], team int, inputs []Input[E], ids []string, at map[string]int, records []*E) error {
	values := make([]Values, len(inputs))
	colIndex := map[string]int{}
	var cols []string
	for i, in := range inputs {
		in.Values(&values[i], true)
		for _, c := range values[i].cols {
			if _, ok := colIndex[c]; !ok {
				colIndex[c] = len(cols)
				cols = append(cols, c)
			}
		}
	}
	width := len(cols) + 2
	per := max(1, maxParams/width)
	for from := 0; from < len(inputs); from += per {
		to := min(from+per, len(inputs))
		var b strings.Builder
		b.WriteString(`INSERT INTO `)
		spec.WriteIdent(&b, res.Table)
		b.WriteString(` ("id", "team_id"`)
		for _, c := range cols {
			b.WriteString(", ")
			spec.WriteIdent(&b, c)
		}
		b.WriteString(") VALUES ")
		row := "(?, ?" + strings.Repeat(", ?", len(cols)) + ")"
		args := make([]any, 0, (to-from)*width)
		for i := from; i < to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			b.WriteString(row)
			vals := make([]any, len(cols))
			for k, c := range values[i].cols {
				vals[colIndex[c]] = values[i].args[k]
			}
			args = append(args, ids[i], team)
			args = append(args, vals...)
		}
		res.writeReturning(&b)
		_, err := w.Query(ctx, -1, b.String(), args, func(rows *sql.Rows) error {
			rec, err := res.Scan(rows)
			if err == nil {
				records[at[res.ID(rec)]] = rec
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

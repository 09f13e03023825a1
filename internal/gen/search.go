package gen

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"strings"

	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"records/internal/annotation"
	"records/internal/migrate"
	"records/internal/spec"
)

// The search index of a resource with searchable members (DESIGN §16):
//
//   - PostgreSQL: tsvector columns, spec.SearchColumn and one a weight
//     class, each member's words weighted by its annotation and folded
//     by records_fold (package fold), as records_search_vector
//     (pgSearchFunctions) makes them, each with a GIN index. A trigger
//     of the table keeps them (search_upkeep.go); a column made is
//     filled as a stored generated column of records_search_vector whose
//     expression is then dropped. The column's comment holds a digest of
//     that expression, so that a changed definition (a member marked,
//     unmarked or reweighted) is seen and the column made again.
//   - SQLite: a contentless FTS5 table, spec.SearchTable, holding the
//     documents of the resource's records (sqliteSearch), kept by three
//     triggers and a batch after commit (a new record is queued, and the
//     service indexes the queue: sqliteQueue), and filled from the table
//     whenever they are made.
//
// The migration engine never sees these (hideSearch), and they are
// compared here, as the event triggers are.

// searchColumn is one searchable member's column and weight.
type searchColumn struct{ name, weight string }

// searchChanges are the statements that bring the search indexes of db to
// those events need (and, on PostgreSQL, the index builds that go apart).
func searchChanges(ctx context.Context, dialect string, db *sql.DB, events []eventTable) (string, string, error) {
	if dialect == migrate.Postgres {
		return pgSearchChanges(ctx, db, events)
	}
	s, err := sqliteSearchChanges(ctx, db, events)
	return s, "", err
}

// describeSearch lists the columns and weights, for a comment.
func describeSearch(cols []searchColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.name + " (" + c.weight + ")"
	}
	return strings.Join(parts, ", ")
}

// sqliteSearch is the FTS5 table of one table, its queue, the view of
// the queue's documents and the triggers, each statement as sqlite_master
// keeps it, by name, in the order they are made, and the statements
// filling the table anew. One contentless table (spec.SearchTable) holds
// for each record the document of every searchable member, at the
// record's rowid, and one of each weight class's members but the last
// (searchClasses), at spec.SearchClassRowid(class) on: a relevance tier
// reads its class as a range of rowids, where a word common in the last
// class alone has no entry — a column filter would read all its matches
// to find that out. One table, not one a class: every commit writing a
// record flushes each FTS5 table it touched into a segment of its own,
// some six pages a table, which was most of what the index cost a
// create (docs/performance.md). Contentless, since a class's rowids are
// no record's; no column sizes, which nothing reads. A new record is
// queued, not indexed (sqliteQueue): the service indexes the queue in
// batches after the creates' commits, one segment a batch.
func sqliteSearch(e eventTable) (objects [][2]string, fill []string) {
	t, name := spec.Ident(e.table.Name), spec.SearchTable(e.table.Name)
	fts := spec.Ident(name)
	idents := make([]string, len(e.search))
	for i, c := range e.search {
		idents[i] = spec.Ident(c.name)
	}
	list := strings.Join(idents, ", ")
	objects = [][2]string{{name, `CREATE VIRTUAL TABLE ` + fts + ` USING fts5(` + list +
		`, content='', columnsize=0, tokenize='porter unicode61 remove_diacritics 2')`}}
	// docs are each document's rowid and values, written of row r.
	docs := func(r string) []string {
		out := []string{r + `"rowid", ` + r + strings.Join(idents, ", "+r)}
		for _, c := range searchClasses(e.search) {
			vals := []string{r + `"rowid" + ` + strconv.FormatInt(spec.SearchClassRowid(c.class), 10)}
			for i, col := range e.search {
				if slices.Contains(c.members, col) {
					vals = append(vals, r+idents[i])
				} else {
					vals = append(vals, "NULL")
				}
			}
			out = append(out, strings.Join(vals, ", "))
		}
		return out
	}
	for _, d := range docs("") {
		fill = append(fill, `INSERT INTO `+fts+`("rowid", `+list+`) SELECT `+d+` FROM `+t)
	}
	objects = append(objects, sqliteQueue(e, list, docs)...)
	return objects, fill
}

// searchClass is a weight class of a table's searchable members: those
// marked with class or heavier.
type searchClass struct {
	class   string
	members []searchColumn
}

// searchClasses are the weight classes of cols but the last (all of
// them), heaviest first: one per weight some member is marked with.
func searchClasses(cols []searchColumn) []searchClass {
	var out []searchClass
	for _, w := range annotation.SearchWeights {
		if !slices.ContainsFunc(cols, func(c searchColumn) bool { return c.weight == string(w) }) {
			continue
		}
		class := slices.DeleteFunc(slices.Clone(cols), func(c searchColumn) bool { return c.weight > string(w) })
		if len(class) < len(cols) {
			out = append(out, searchClass{string(w), class})
		}
	}
	return out
}

func sqliteSearchChanges(ctx context.Context, db *sql.DB, events []eventTable) (string, error) {
	have, err := namedTexts(ctx, db, `SELECT name, sql FROM sqlite_master
WHERE type = 'trigger' AND name LIKE 'search\_%' ESCAPE '\' OR type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'
OR type IN ('table', 'view') AND (name LIKE '%\_search\_queue' ESCAPE '\' OR name LIKE '%\_search\_pending' ESCAPE '\')`)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range events {
		if len(e.search) == 0 {
			continue
		}
		objects, fill := sqliteSearch(e)
		var changed [][2]string
		for _, o := range objects {
			if have[o[0]] != o[1] {
				changed = append(changed, o)
			}
			delete(have, o[0])
		}
		if len(changed) == 0 {
			continue
		}
		b.WriteString("-- Search " + e.table.Name + " by " + describeSearch(e.search) + "\n")
		if onlyViews(changed) {
			// The index, its queue and its triggers as they were: the
			// documents' rule is theirs, so the view alone is made again.
			for _, o := range changed {
				b.WriteString(dropSearchObject(o[0]) + ";\n" + o[1] + ";\n")
			}
			continue
		}
		for _, o := range slices.Backward(objects) {
			b.WriteString(dropSearchObject(o[0]) + ";\n")
		}
		for _, o := range objects {
			b.WriteString(o[1] + ";\n")
		}
		// Made anew (or the table rebuilt, its rowids changed): read
		// again, every record, and none left queued.
		for _, f := range fill {
			b.WriteString(f + ";\n")
		}
	}
	names := slices.Sorted(maps.Keys(have))
	// Triggers and views first: they name the tables.
	slices.SortStableFunc(names, func(a, b string) int { return searchDropRank(a) - searchDropRank(b) })
	for _, name := range names {
		b.WriteString(dropSearchObject(name) + ";\n")
	}
	return b.String(), nil
}

// onlyViews tells whether the search objects are all views.
func onlyViews(objects [][2]string) bool {
	return !slices.ContainsFunc(objects, func(o [2]string) bool {
		_, kind := searchObjectKind(o[0])
		return kind != "VIEW"
	})
}

// hideSearch keeps the search indexes out of the migration engine's view
// of the database, so that it neither drops them nor sees a difference:
// they are compared apart (searchChanges).
func hideSearch(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		var keep []*atlasschema.Table
		for _, t := range current.Tables {
			if isSearchTable(t.Name) {
				continue
			}
			t.Columns = slices.DeleteFunc(t.Columns, func(c *atlasschema.Column) bool { return isSearchColumn(c.Name) })
			t.Indexes = slices.DeleteFunc(t.Indexes, func(i *atlasschema.Index) bool {
				col, ok := strings.CutPrefix(i.Name, t.Name+"_")
				return ok && isSearchColumn(col)
			})
			keep = append(keep, t)
		}
		current.Tables = keep
		return next.Diff(current, desired)
	})
}

// isSearchColumn tells a PostgreSQL search column: spec.SearchColumn or
// a weight class's.
func isSearchColumn(name string) bool {
	class, ok := strings.CutPrefix(name, spec.SearchColumn+"_")
	return name == spec.SearchColumn || ok && len(class) == 1 && strings.Contains(annotation.SearchWeights, strings.ToUpper(class))
}

// isSearchTable tells an FTS5 table or one of its shadow tables.
func isSearchTable(name string) bool {
	for _, suffix := range []string{"", "_data", "_idx", "_docsize", "_config", "_content", spec.SearchQueueSuffix} {
		base, ok := strings.CutSuffix(name, suffix)
		if ok && len(base) > 2 && base[len(base)-2] == '_' && strings.Contains(annotation.SearchWeights, strings.ToUpper(base[len(base)-1:])) {
			base = base[:len(base)-2] // a weight class's table
		}
		if ok && strings.HasSuffix(base, spec.SearchTableSuffix) {
			return true
		}
	}
	return false
}

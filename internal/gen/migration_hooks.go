package gen

import (
	"ariga.io/atlas/sql/postgres"
	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"
)

// buildIndexesConcurrently has PostgreSQL build an index added to a table
// that exists with CREATE INDEX CONCURRENTLY: a plain CREATE INDEX holds
// every write to the table until the index is built, minutes on a large
// one. (An index of a new table is made with the table, in the
// migration's transaction.)
var buildIndexesConcurrently = eachTableChange(func(c atlasschema.Change) {
	if add, ok := c.(*atlasschema.AddIndex); ok {
		add.Extra = append(add.Extra, &postgres.Concurrently{})
	}
})

// alterCollations changes the collation of a column that exists where the
// schema gives it another (inCodePointOrder): PostgreSQL's diff compares
// a column's type, nullability and default but not its collation.
// ALTER COLUMN … TYPE … COLLATE rewrites no row (the type stays) but
// rebuilds the column's indexes, holding writes to the table meanwhile.
func alterCollations(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		changes, err := next.Diff(current, desired)
		if err != nil {
			return nil, err
		}
		for _, to := range desired.Tables {
			from, ok := current.Table(to.Name)
			if !ok {
				continue // created with its collations
			}
			var modify []atlasschema.Change
			for _, c := range to.Columns {
				was, ok := from.Column(c.Name)
				if !ok || collation(was.Attrs) == collation(c.Attrs) {
					continue
				}
				modify = append(modify, &atlasschema.ModifyColumn{From: was, To: c, Change: atlasschema.ChangeType})
			}
			changes = modifyColumns(changes, to, modify)
		}
		return changes, nil
	})
}

// modifyColumns adds the column changes to the table's ModifyTable in
// changes (made when it has none), merged with one the diff made already.
func modifyColumns(changes []atlasschema.Change, t *atlasschema.Table, modify []atlasschema.Change) []atlasschema.Change {
	if len(modify) == 0 {
		return changes
	}
	var table *atlasschema.ModifyTable
	for _, c := range changes {
		if m, ok := c.(*atlasschema.ModifyTable); ok && m.T.Name == t.Name {
			table = m
		}
	}
	if table == nil {
		table = &atlasschema.ModifyTable{T: t}
		changes = append(changes, table)
	}
	for _, add := range modify {
		mc := add.(*atlasschema.ModifyColumn)
		merged := false
		for _, c := range table.Changes {
			if have, ok := c.(*atlasschema.ModifyColumn); ok && have.To.Name == mc.To.Name {
				have.Change |= atlasschema.ChangeType
				merged = true
			}
		}
		if !merged {
			table.Changes = append(table.Changes, mc)
		}
	}
	return changes
}

// collation is the collation among attrs ("" for the default).
func collation(attrs []atlasschema.Attr) string {
	for _, a := range attrs {
		if c, ok := a.(*atlasschema.Collation); ok {
			return c.V
		}
	}
	return ""
}

// addColumnsInPlace keeps a column added with an index (a sortable or
// unique member) from costing a copy of its table on SQLite: the migration
// engine rebuilds a table whose added column has an index, copying every
// row, where ALTER TABLE … ADD COLUMN and CREATE INDEX, which the plan
// holds anyway, do the same in place. A column added with a foreign key
// still rebuilds (SQLite adds one in place only with a null default).
var addColumnsInPlace = eachTableChange(func(c atlasschema.Change) {
	if add, ok := c.(*atlasschema.AddColumn); ok && len(add.C.ForeignKeys) == 0 {
		add.C.Indexes = nil
	}
})

// eachTableChange is a diff hook that hands fn every change the diff makes
// to a table that exists (the changes of each ModifyTable), to adjust.
func eachTableChange(fn func(atlasschema.Change)) schema.DiffHook {
	return func(next schema.Differ) schema.Differ {
		return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
			changes, err := next.Diff(current, desired)
			if err != nil {
				return nil, err
			}
			for _, c := range changes {
				if m, ok := c.(*atlasschema.ModifyTable); ok {
					for _, mc := range m.Changes {
						fn(mc)
					}
				}
			}
			return changes, nil
		})
	}
}

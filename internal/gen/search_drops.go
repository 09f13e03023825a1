package gen

import (
	"context"
	"database/sql"
	"strings"

	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"records/internal/spec"
)

// droppedColumns collects the columns a migration's diff drops, by table,
// so that a PostgreSQL search trigger naming one can be dropped first:
// CREATE TRIGGER … UPDATE OF lists its columns, and PostgreSQL refuses to
// drop a column a trigger depends on. searchChanges makes the trigger
// again, of the members that remain.
type droppedColumns struct{ of [][2]string }

// hook is the schema.DiffHook that notes the drops.
func (d *droppedColumns) hook(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		changes, err := next.Diff(current, desired)
		for _, c := range changes {
			m, ok := c.(*atlasschema.ModifyTable)
			if !ok {
				continue
			}
			for _, mc := range m.Changes {
				if drop, ok := mc.(*atlasschema.DropColumn); ok {
					d.of = append(d.of, [2]string{m.T.Name, drop.C.Name})
				}
			}
		}
		return changes, err
	})
}

// untrigger returns the statements dropping each search trigger of db that
// names a dropped column, to run before the drops.
func (d *droppedColumns) untrigger(ctx context.Context, db *sql.DB) (string, error) {
	var b strings.Builder
	done := map[string]bool{}
	for _, tc := range d.of {
		table, column := tc[0], tc[1]
		if done[table] {
			continue
		}
		var names bool
		err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_attribute a
  ON a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr)
  WHERE t.tgname = $1 AND t.tgrelid = to_regclass($2) AND a.attname = $3)`,
			pgUpkeepTrigger, spec.Ident(table), column).Scan(&names)
		if err != nil {
			return "", err
		}
		if names {
			done[table] = true
			b.WriteString("DROP TRIGGER " + pgUpkeepTrigger + " ON " + spec.Ident(table) + ";\n")
		}
	}
	return b.String(), nil
}

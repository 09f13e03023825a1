package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/entc/gen"

	"records/internal/migrate"
)

// constraintsFile is the Go file of the schema's unique constraints, by
// PostgreSQL's names for them — primary keys (<table>_pkey), unique
// columns (<table>_<column>_key), unique indexes (their names) — with
// their table and columns, in the migrations package: so that the service
// names the member of a conflict without linking ent's schema package and
// the migration engine under it.
func constraintsFile(cfg Config, graph *gen.Graph) (string, []byte, error) {
	tables, err := schemaTables(graph, migrate.Postgres)
	if err != nil {
		return "", nil, err
	}
	type entry struct {
		name, table string
		columns     []string
	}
	var all []entry
	names := func(cols []*schema.Column) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = c.Name
		}
		return out
	}
	for _, t := range tables {
		all = append(all, entry{t.Name + "_pkey", t.Name, names(t.PrimaryKey)})
		for _, c := range t.Columns {
			if c.Unique {
				all = append(all, entry{t.Name + "_" + c.Name + "_key", t.Name, []string{c.Name}})
			}
		}
		for _, idx := range t.Indexes {
			if idx.Unique {
				all = append(all, entry{idx.Name, t.Name, names(idx.Columns)})
			}
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var b bytes.Buffer
	b.WriteString(goHeader + `
package migrations

// Constraint is a unique constraint of the schema: its table and columns.
type Constraint struct {
	Table   string
	Columns []string
}

// Constraints are the schema's unique constraints by PostgreSQL's names
// for them, so that a conflict can name the member whose value is taken.
var Constraints = map[string]Constraint{
`)
	for _, e := range all {
		fmt.Fprintf(&b, "\t%q: {%q, %#v},\n", e.name, e.table, e.columns)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return "", nil, fmt.Errorf("formatting the constraints: %w", err)
	}
	return path.Join(cfg.MigrationsDir, "constraints.go"), src, nil
}

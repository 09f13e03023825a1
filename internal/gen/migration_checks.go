package gen

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"entgo.io/ent/entc/gen"
)

// alterTable and addedColumn read PostgreSQL's plan: the table an ALTER
// TABLE changes, and each column it adds with the rest of its definition.
var (
	alterTable  = regexp.MustCompile(`(?m)^ALTER TABLE "([^"]+)" (.*);$`)
	addedColumn = regexp.MustCompile(`ADD COLUMN "([^"]+)" ([^,]*)`)
)

// requiredNeedsDefault refuses a plan that adds a required member without
// a default to a table that exists: its records, if it holds any, would
// have no value for it, and the migration would fail on them.
func requiredNeedsDefault(cfg Config, graph *gen.Graph, plan string) error {
	var errs []string
	for _, alter := range alterTable.FindAllStringSubmatch(plan, -1) {
		for _, add := range addedColumn.FindAllStringSubmatch(alter[2], -1) {
			def := add[2]
			if !strings.Contains(def, "NOT NULL") || strings.Contains(def, "DEFAULT") {
				continue
			}
			where, member, typ := cfg.SchemaDir, add[1], alter[1]
			for _, n := range graph.Nodes {
				if n.Table() != alter[1] {
					continue
				}
				typ = n.Name
				for _, f := range n.Fields {
					if f.StorageKey() == add[1] {
						where, member = fieldPos(cfg, n, f.Name), f.Name
					}
				}
			}
			errs = append(errs, fmt.Sprintf("%s: the new required member %s of %s needs a Default: the table may hold "+
				"records already, which would have no value for it; add Default(…) to the field, or make it Optional().Nillable()",
				where, member, typ))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

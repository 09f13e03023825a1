package gen

import (
	"strings"

	atlas "ariga.io/atlas/sql/migrate"

	"records/internal/migrate"
)

// planFormatter writes a plan as one statement per line, each after its
// comment, with nothing that varies between runs (no timestamps).
//
// A SQLite plan that rebuilds a table (foreign keys off, a copy, the old
// table dropped, the copy renamed) also turns legacy_alter_table on for the
// rebuild: otherwise SQLite checks every trigger when the copy is renamed,
// and the event triggers of every other table, which write to "events",
// fail that check while a rebuild of events has it dropped.
//
// An index PostgreSQL builds concurrently goes to a second file, ending in
// buildsSuffix, after a DROP INDEX CONCURRENTLY IF EXISTS of its name: a
// build cut short (the process killed) leaves an invalid index, which the
// next attempt must drop to build it again.
type planFormatter struct{}

// buildsSuffix ends the name of the file planFormatter writes the
// concurrent index builds to.
const buildsSuffix = ".builds.sql"

func (planFormatter) Format(p *atlas.Plan) ([]atlas.File, error) {
	var b, builds strings.Builder
	for _, c := range p.Changes {
		w := &b
		name, concurrent := migrate.ConcurrentIndex(c.Cmd)
		if concurrent {
			w = &builds
		}
		if c.Comment != "" {
			w.WriteString("-- " + strings.ToUpper(c.Comment[:1]) + c.Comment[1:] + "\n")
		}
		if concurrent {
			w.WriteString("DROP INDEX CONCURRENTLY IF EXISTS " + name + ";\n")
		}
		w.WriteString(c.Cmd + ";\n")
		switch c.Cmd {
		case "PRAGMA foreign_keys = off":
			w.WriteString("PRAGMA legacy_alter_table = on;\n")
		case "PRAGMA foreign_keys = on":
			w.WriteString("PRAGMA legacy_alter_table = off;\n")
		}
	}
	files := []atlas.File{atlas.NewLocalFile(p.Name+".sql", []byte(b.String()))}
	if builds.Len() > 0 {
		files = append(files, atlas.NewLocalFile(p.Name+buildsSuffix, []byte(builds.String())))
	}
	return files, nil
}

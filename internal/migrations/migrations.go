// Package migrations embeds the versioned migration files that recordsgen
// generates from the ent schema, one set per database dialect. The files are
// committed and never edited once released; package migrate applies them.
package migrations

import (
	"embed"
	"fmt"

	"records/internal/migrate"
)

//go:embed sqlite postgres
var files embed.FS

// For returns the migrations of a dialect, in order.
func For(dialect string) ([]migrate.Migration, error) {
	dir, ok := migrate.Dirs[dialect]
	if !ok {
		return nil, fmt.Errorf("no migrations for dialect %q", dialect)
	}
	return migrate.Read(files, dir)
}

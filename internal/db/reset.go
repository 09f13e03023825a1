package db

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"records/internal/migrate"
	"records/internal/spec"
)

// Reset empties the database at url: on SQLite it drops every table, view,
// index and trigger in the file, in one transaction; on PostgreSQL it drops
// the connection's schema with everything in it and makes it again. A
// development database's way back from a schema experiment; nothing of its
// data is kept. The database is emptied where it is, never deleted: a path
// that is not a SQLite database is refused untouched, and a server still
// using the database sees its tables gone (its requests fail) rather than
// writing on into a deleted file.
func Reset(ctx context.Context, url string) error {
	src, err := parseURL(url)
	if err != nil {
		return err
	}
	database, err := Open(ctx, Config{URL: url, MaxConns: 1})
	if err != nil {
		return err
	}
	defer database.Close()
	if src.dialect == migrate.SQLite {
		return resetSQLite(ctx, database)
	}
	_, err = database.SQL.ExecContext(ctx, `DO $$
DECLARE s text := current_schema();
BEGIN
  EXECUTE format('DROP SCHEMA %I CASCADE', s);
  EXECUTE format('CREATE SCHEMA %I', s);
END $$`)
	if err != nil {
		return fmt.Errorf("resetting the database: %w", Classify(ctx, err))
	}
	return nil
}

// resetSQLite drops everything in a SQLite database but SQLite's own
// tables, whose sqlite_sequence it empties, and compacts the file.
func resetSQLite(ctx context.Context, database *DB) error {
	conn, err := database.SQL.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Not a SQLite database (a text file): refused before anything is done.
	var objects []struct{ kind, name string }
	rows, err := conn.QueryContext(ctx, `SELECT "type", "name" FROM sqlite_master WHERE "type" IN ('table', 'view') AND "name" NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	if err != nil {
		return fmt.Errorf("resetting the database: %w", err)
	}
	for rows.Next() {
		var o struct{ kind, name string }
		if err := rows.Scan(&o.kind, &o.name); err != nil {
			rows.Close()
			return err
		}
		objects = append(objects, o)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	// Dropping a parent table would cascade into its children.
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, o := range objects {
		// A table's indexes and triggers go with it.
		if _, err := tx.ExecContext(ctx, `DROP `+strings.ToUpper(o.kind)+` IF EXISTS `+spec.Ident(o.name)); err != nil {
			return errors.Join(fmt.Errorf("resetting the database: dropping %s: %w", o.name, err), tx.Rollback())
		}
	}
	// SQLite keeps AUTOINCREMENT counters in sqlite_sequence, made with the
	// first such table; it cannot be dropped, only emptied.
	var counters int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE "name" = 'sqlite_sequence'`).Scan(&counters); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	if counters > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence`); err != nil {
			return errors.Join(err, tx.Rollback())
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `VACUUM`)
	return err
}

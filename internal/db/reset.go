package db

import (
	"context"
	"errors"
	"fmt"
	"os"

	"records/internal/migrate"
)

// Reset empties the database at url: on SQLite it deletes the file (and its
// WAL); on PostgreSQL it drops the connection's schema with everything in it
// and makes it again. A development database's way back from a schema
// experiment; nothing of its data is kept.
func Reset(ctx context.Context, url string) error {
	src, err := parseURL(url)
	if err != nil {
		return err
	}
	if src.dialect == migrate.SQLite {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(src.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	database, err := Open(ctx, Config{URL: url, MaxConns: 1})
	if err != nil {
		return err
	}
	defer database.Close()
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

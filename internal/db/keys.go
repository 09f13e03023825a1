package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
)

// Key returns the service's secret named name, making it (size random
// bytes) on first use. Every instance on the database gets the same key:
// the first to ask makes it, and the others read what it made.
func (db *DB) Key(ctx context.Context, name string, size int) ([]byte, error) {
	fresh := make([]byte, size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := db.Exec(ctx, `INSERT INTO "service_keys" ("id", "value") VALUES (?, ?) ON CONFLICT ("id") DO NOTHING`, name, fresh); err != nil {
		return nil, fmt.Errorf("making the key %s: %w", name, err)
	}
	var key []byte
	err := db.Each(ctx, 1, `SELECT "value" FROM "service_keys" WHERE "id" = ?`, []any{name}, func(rows *sql.Rows) error {
		return rows.Scan(&key)
	})
	if err == nil && len(key) == 0 {
		err = fmt.Errorf("the key %s is missing", name)
	}
	return key, err
}

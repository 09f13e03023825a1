package events

import (
	"context"
	"database/sql"

	"records/internal/engine"
)

// TeamEvent is an event of the log with its team, as PageAll reads it.
type TeamEvent struct {
	Team int
	Event
}

// PageAll reads up to limit events of every team after pos, in the log's
// order — (txid, id), as each team's log — and visible under the same rule
// (visible): what a publisher of every event follows (package publish).
// On PostgreSQL it reads each team's first events along the team's index
// and keeps the first of them all (the log has no index across teams);
// SQLite numbers its events in commit order (txid 0). It reads through r:
// the log's database or a connection of it.
func (l *Log) PageAll(ctx context.Context, r engine.Reader, after Position, limit int) ([]TeamEvent, error) {
	const cols = `"team_id", "id", "txid", "type", "record_id", "meta", "image", "occurred_at"`
	text := `SELECT ` + cols + ` FROM "events" WHERE "id" > ? ORDER BY "id" LIMIT ?`
	args := []any{after.Seq, limit}
	if l.DB.Postgres() {
		visible, held, err := l.Visible(ctx, r)
		if err != nil {
			return nil, err
		}
		text = `SELECT e.* FROM "teams" AS t CROSS JOIN LATERAL (SELECT ` + cols + ` FROM "events"
WHERE "team_id" = t."id" AND ("txid", "id") > (?, ?)` + visible + ` ORDER BY "txid", "id" LIMIT ?) AS e
ORDER BY e."txid", e."id" LIMIT ?`
		args = append(append([]any{after.TxID, after.Seq}, held...), limit, limit)
	}
	out := make([]TeamEvent, 0, min(limit, 256))
	err := r.Each(ctx, limit, text, args, func(rows *sql.Rows) error {
		var e TeamEvent
		if err := rows.Scan(&e.Team, &e.Seq, &e.TxID, &e.Type, &e.RecordID, &e.Meta, &e.Image, &e.OccurredAt); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

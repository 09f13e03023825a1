package events

import (
	"context"
	"encoding/json"

	"records/internal/engine"
)

// candidates bounds the events Change looks through: a record's newer
// changes of the same kind that committed before it was asked.
const candidates = 64

// Change is the event of a record's change, as the log answers it: the
// newest of its action (created, updated, deleted, restored, purged) whose
// record is at version (any version for a deletion or a purge, whose events
// hold no record), in the team. A business rule's
// after-commit receives it: the engine asks once the change is committed.
// A record's events are ordered by its row's lock, so a version's event is
// one; a later change's is told apart by its version.
func (l *Log) Change(ctx context.Context, team int, plural, id, action string, version int64) (engine.Committed, bool, error) {
	text := columns + ` WHERE "team_id" = ? AND "record_id" = ? AND "type" = ? ORDER BY "id" DESC LIMIT ?`
	page, err := l.read(ctx, l.DB, candidates, text, []any{team, id, plural + "." + action, candidates})
	if err != nil {
		return engine.Committed{}, false, err
	}
	for i := range page {
		e := &page[i]
		if action != "deleted" && action != "purged" { // their events hold no record
			var image struct {
				Version int64 `json:"version"`
			}
			if !e.Image.Valid || json.Unmarshal([]byte(e.Image.String), &image) != nil || image.Version != version {
				continue
			}
		}
		return engine.Committed{ID: l.ID(e.Seq), Type: e.Type, RecordID: e.RecordID, Team: team, JSON: l.Append(nil, team, e)}, true, nil
	}
	return engine.Committed{}, false, nil
}

package webhooks

import (
	"context"
	"database/sql"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"records/internal/engine"
	"records/internal/events"
)

// dispatchPage is how many events the dispatcher reads a statement.
const dispatchPage = 500

// followerPrefix begins the name of a team's position in event_followers.
const followerPrefix = "webhooks:"

// followerOf names a team's position in event_followers.
func followerOf(team int) string { return followerPrefix + strconv.Itoa(team) }

// follow starts following a team's events from now, unless they are
// followed already: in the transaction that makes a team's first webhook.
func (s *Service) follow(ctx context.Context, w engine.Writer, team int) error {
	others := false
	if err := w.Each(ctx, 1, `SELECT 1 FROM "webhooks" WHERE "team_id" = ?`, []any{team},
		func(*sql.Rows) error { others = true; return nil }); err != nil || others {
		return err
	}
	pos, err := s.Log.LastIn(ctx, w, team)
	if err != nil {
		return err
	}
	_, err = w.Exec(ctx, `INSERT INTO "event_followers" ("id", "txid", "seq") VALUES (?, ?, ?)
ON CONFLICT ("id") DO UPDATE SET "txid" = excluded."txid", "seq" = excluded."seq"`, followerOf(team), pos.TxID, pos.Seq)
	return err
}

// dispatch writes the first attempts of the events after each team's
// position, for the team's enabled webhooks that want them, and moves the
// positions, in one transaction; it returns the most events it read of one
// team. Only teams with webhooks are followed, each along its own log's
// index. On PostgreSQL one instance dispatches at a time (an advisory
// lock, which, unlike a row lock, gives the transaction no id to hold the
// log back).
func (s *Service) dispatch(ctx context.Context) (int, error) {
	if some, err := s.pending(ctx); err != nil || !some {
		return 0, err
	}
	most, read := 0, 0
	err := s.DB.Write(ctx, true, func(w engine.Writer) error {
		if got, err := dispatchLock(ctx, w); err != nil || !got {
			return err
		}
		var teams []int
		if err := w.Each(ctx, -1, `SELECT DISTINCT "team_id" FROM "webhooks"`, nil, func(rows *sql.Rows) error {
			var team int
			err := rows.Scan(&team)
			teams = append(teams, team)
			return err
		}); err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		for _, team := range teams {
			n, err := s.dispatchTeam(ctx, w, team, now)
			if err != nil {
				return err
			}
			most, read = max(most, n), read+n
		}
		return nil
	})
	if err == nil {
		s.eventsRead.Add(float64(read))
	}
	return most, err
}

// pending tells whether any team with webhooks has an event after its
// follower's position that dispatchTeam would read, so that a dispatch it
// spares would have found nothing. On PostgreSQL a second read keeps to
// the log's horizon, as dispatchTeam does: while another transaction holds
// the log back, events past it are not yet read, and a dispatch each poll
// would only begin and end a transaction. It is made only when the first,
// which takes one statement where it takes two, finds events.
func (s *Service) pending(ctx context.Context) (bool, error) {
	some, err := s.DB.Holds(ctx, pendingAny)
	if err != nil || !some || !s.DB.Postgres() {
		return some, err
	}
	visible, horizon, err := s.Log.Visible(ctx, s.DB)
	if err != nil {
		return false, err
	}
	return s.DB.Holds(ctx, pendingEvents(visible), horizon...)
}

// pendingAny is pendingEvents with no horizon, read at every poll.
var pendingAny = pendingEvents("")

// pendingEvents is the read of whether any team with webhooks has an event
// after its follower's position, along the log's index, kept to visible
// (events.Log.Visible).
func pendingEvents(visible string) string {
	return `SELECT EXISTS (SELECT 1 FROM (SELECT DISTINCT "team_id" FROM "webhooks") AS "w"
JOIN "event_followers" AS "f" ON "f"."id" = '` + followerPrefix + `' || CAST("w"."team_id" AS TEXT)
WHERE EXISTS (SELECT 1 FROM "events" AS "e" WHERE "e"."team_id" = "w"."team_id" AND ("e"."txid", "e"."id") > ("f"."txid", "f"."seq")` +
		visible + `))`
}

// dispatchLock takes the dispatcher's lock for the transaction: on
// PostgreSQL an advisory lock, false when another instance holds it; on
// SQLite the write transaction is lock enough.
func dispatchLock(ctx context.Context, w engine.Writer) (bool, error) {
	if !w.Postgres() {
		return true, nil
	}
	h := fnv.New64a()
	h.Write([]byte("records:webhooks:dispatch"))
	got := false
	err := w.Each(ctx, 1, `SELECT pg_try_advisory_xact_lock(?)`, []any{int64(h.Sum64())},
		func(rows *sql.Rows) error { return rows.Scan(&got) })
	return got, err
}

// dispatchTeam writes the first attempts of a page of team's events after
// its position, made at now, and moves the position past them; it returns
// how many events it read (0 for a team not followed).
func (s *Service) dispatchTeam(ctx context.Context, w engine.Writer, team int, now time.Time) (int, error) {
	var pos events.Position
	found := false
	if err := w.Each(ctx, 1, `SELECT "txid", "seq" FROM "event_followers" WHERE "id" = ?`, []any{followerOf(team)},
		func(rows *sql.Rows) error { found = true; return rows.Scan(&pos.TxID, &pos.Seq) }); err != nil {
		return 0, err
	}
	if !found {
		return 0, nil
	}
	page, err := s.Log.PageIn(ctx, w, team, pos, events.Filter{}, dispatchPage)
	if err != nil || len(page) == 0 {
		return 0, err
	}
	// The team's webhooks are read after its events: a webhook enabled (or
	// made) before an event was committed is seen enabled here even on
	// PostgreSQL, where each statement of this transaction sees what
	// committed before it began.
	var list []*Webhook
	if err := w.Each(ctx, -1, webhookColumns+` WHERE "team_id" = ?`, []any{team}, func(rows *sql.Rows) error {
		h, err := scanWebhook(rows)
		list = append(list, h)
		return err
	}); err != nil {
		return 0, err
	}
	var out []*Delivery
	for i := range page {
		e := &page[i]
		var body []byte
		for _, h := range list {
			if h.DisabledAt.Valid || !slices.Contains(h.Events, "*") && !slices.Contains(h.Events, e.Type) {
				continue
			}
			if body == nil {
				body = s.Log.Append(nil, team, e)
			}
			out = append(out, &Delivery{ID: newDeliveryID(), Team: team, WebhookID: h.ID, EventID: s.Log.ID(e.Seq),
				Body: string(body), Attempt: 1, Status: "pending", NextAt: now, CreatedAt: now})
		}
	}
	if err := insertDeliveries(ctx, w, out); err != nil {
		return 0, err
	}
	last := page[len(page)-1].Position
	_, err = w.Exec(ctx, `UPDATE "event_followers" SET "txid" = ?, "seq" = ? WHERE "id" = ?`, last.TxID, last.Seq, followerOf(team))
	return len(page), err
}

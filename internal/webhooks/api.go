// Package webhooks delivers events to the URLs teams register: the
// /v1/webhooks routes, the dispatcher that turns each event into a
// delivery for every webhook that wants it, and the worker that makes the
// attempts, with retries, across any number of server instances.
package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/engine"
	"records/internal/problem"
	"records/internal/spec"
	"records/internal/suggest"
	"records/internal/tenant"
	"records/internal/wire"
)

// Webhook is a team's endpoint.
type Webhook struct {
	ID           string
	Team         int
	URL          string
	Events       []string
	Description  sql.NullString
	Secret       []byte // sealed
	Version      int64
	CreatedAt    time.Time
	UpdatedAt    time.Time
	FailingSince sql.NullTime
	DisabledAt   sql.NullTime
}

const webhookColumns = `SELECT "id", "team_id", "url", "events", "description", "secret", "version", "created_at", "updated_at", "failing_since", "disabled_at" FROM "webhooks"`

func scanWebhook(rows *sql.Rows) (*Webhook, error) {
	var w Webhook
	var evs string
	if err := rows.Scan(&w.ID, &w.Team, &w.URL, &evs, &w.Description, &w.Secret, &w.Version, &w.CreatedAt, &w.UpdatedAt, &w.FailingSince, &w.DisabledAt); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(evs), &w.Events); err != nil {
		return nil, fmt.Errorf("webhook %s: events: %w", w.ID, err)
	}
	return &w, nil
}

func appendNullTime(b []byte, t sql.NullTime) []byte {
	if !t.Valid {
		return append(b, "null"...)
	}
	return wire.AppendTime(b, t.Time)
}

// appendWebhook appends the webhook's JSON, with its secret when not "".
func appendWebhook(b []byte, w *Webhook, secret string) []byte {
	b = append(b, `{"id":`...)
	b = wire.AppendString(b, w.ID)
	b = append(b, `,"url":`...)
	b = wire.AppendString(b, w.URL)
	b = append(b, `,"events":[`...)
	for i, e := range w.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, e)
	}
	b = append(b, `],"description":`...)
	if w.Description.Valid {
		b = wire.AppendString(b, w.Description.String)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"enabled":`...)
	b = strconv.AppendBool(b, !w.DisabledAt.Valid)
	b = append(b, `,"disabled_at":`...)
	b = appendNullTime(b, w.DisabledAt)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, w.Version, 10)
	b = append(b, `,"created_at":`...)
	b = wire.AppendTime(b, w.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = wire.AppendTime(b, w.UpdatedAt)
	if secret != "" {
		b = append(b, `,"secret":`...)
		b = wire.AppendString(b, secret)
	}
	return append(b, '}')
}

// input is a webhook body: each member, if given.
type input struct {
	URL         *string
	Events      *[]string
	Description *sql.NullString // null clears it
	Enabled     *bool
}

// decode reads a webhook body strictly, with the project's JSON reader
// (engine.ParseBody, the wire conversions): an object of known members,
// each of its type; errors name the member.
func decode(body []byte, patch bool) (*input, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, problem.New(problem.InvalidRequest, "the body is empty; send a JSON object")
	}
	members, err := engine.ParseBody(body)
	if err != nil {
		return nil, err
	}
	known := []string{"url", "events", "description"}
	if patch {
		known = append(known, "enabled")
	}
	var in input
	for _, m := range members {
		switch m.Name {
		case "url":
			u, err := wire.Text(m.Value)
			if err != nil {
				return nil, problem.Member("url", "%v", err)
			}
			in.URL = &u
		case "events":
			items, err := wire.ParseArray(m.Value)
			if err != nil {
				return nil, problem.Member("events", "must be an array of event types")
			}
			list := make([]string, len(items))
			for i, item := range items {
				if list[i], err = wire.Text(item); err != nil {
					return nil, problem.Member(fmt.Sprintf("events[%d]", i), "%v", err)
				}
			}
			in.Events = &list
		case "description":
			d := &sql.NullString{}
			if !wire.IsNull(m.Value) {
				if d.String, err = wire.Text(m.Value); err != nil {
					return nil, problem.Member("description", "%v (or null)", err)
				}
				if len([]rune(d.String)) > spec.MaxWebhookDescription {
					return nil, problem.Member("description", "must be at most %d characters", spec.MaxWebhookDescription)
				}
				d.Valid = true
			}
			in.Description = d
		case "enabled":
			if !patch {
				return nil, problem.Member("enabled", "unknown member (a webhook is created enabled)")
			}
			switch v := string(m.Value); v {
			case "true", "false":
				b := v == "true"
				in.Enabled = &b
			default:
				return nil, problem.Member("enabled", "must be true or false")
			}
		default:
			hint := ""
			if best, ok := suggest.Closest(m.Name, known); ok {
				hint = fmt.Sprintf("; did you mean %q?", best)
			}
			return nil, problem.Member(m.Name, "unknown member (a webhook has %s)%s", strings.Join(known, ", "), hint)
		}
	}
	return &in, nil
}

// checkEvents validates the event types a webhook asks for.
func (s *Service) checkEvents(list []string) error {
	if len(list) == 0 || len(list) > 100 {
		return problem.Member("events", "must list 1 to 100 event types (\"*\" for all)")
	}
	types := s.Log.Types()
	seen := map[string]bool{}
	for i, t := range list {
		if seen[t] {
			return problem.Member(fmt.Sprintf("events[%d]", i), "%q is listed twice", t)
		}
		seen[t] = true
		if _, ok := slices.BinarySearch(types, t); !ok && t != "*" {
			return problem.Member(fmt.Sprintf("events[%d]", i), "%q is not an event type (e.g. returns.created, or \"*\")", t)
		}
	}
	return nil
}

func teamOf(c *gin.Context) int {
	team, _ := tenant.Team(c.Request.Context())
	return team
}

// find reads the team's webhook with the id, or a 404.
func (s *Service) find(ctx context.Context, r engine.Reader, team int, id string) (*Webhook, error) {
	var w *Webhook
	err := r.Each(ctx, 1, webhookColumns+` WHERE "id" = ? AND "team_id" = ?`, []any{id, team}, func(rows *sql.Rows) (err error) {
		w, err = scanWebhook(rows)
		return err
	})
	if err == nil && w == nil {
		err = problem.New(problem.NotFound, "no webhook has id %s", strconv.Quote(id))
	}
	return w, err
}

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
// each of its type. Malformed JSON is the error; the problems of members
// are returned, every one, naming the member, and given holds the names the
// body gave (whether or not they were valid).
func decode(body []byte, patch bool) (in *input, given map[string]bool, errs []problem.MemberError, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil, nil, problem.New(problem.InvalidRequest, "the body is empty; send a JSON object")
	}
	members, err := engine.ParseBody(body)
	if err != nil {
		return nil, nil, nil, err
	}
	known := []string{"url", "events", "description"}
	if patch {
		known = append(known, "enabled")
	}
	fail := func(member, format string, args ...any) {
		errs = append(errs, problem.MemberError{Member: member, Problem: fmt.Sprintf(format, args...)})
	}
	in, given = &input{}, map[string]bool{}
	for _, m := range members {
		given[m.Name] = true
		switch m.Name {
		case "url":
			u, err := wire.Text(m.Value)
			if err != nil {
				fail("url", "%v", err)
				continue
			}
			in.URL = &u
		case "events":
			items, err := wire.ParseArray(m.Value)
			if err != nil {
				fail("events", "must be an array of event types")
				continue
			}
			list := make([]string, len(items))
			ok := true
			for i, item := range items {
				if list[i], err = wire.Text(item); err != nil {
					fail(fmt.Sprintf("events[%d]", i), "%v", err)
					ok = false
				}
			}
			if ok {
				in.Events = &list
			}
		case "description":
			d := &sql.NullString{}
			if !wire.IsNull(m.Value) {
				if d.String, err = wire.Text(m.Value); err != nil {
					fail("description", "%v (or null)", err)
					continue
				}
				if len([]rune(d.String)) > spec.MaxWebhookDescription {
					fail("description", "must be at most %d characters", spec.MaxWebhookDescription)
					continue
				}
				d.Valid = true
			}
			in.Description = d
		case "enabled":
			if !patch {
				fail("enabled", "unknown member (a webhook is created enabled)")
				continue
			}
			switch v := string(m.Value); v {
			case "true", "false":
				b := v == "true"
				in.Enabled = &b
			default:
				fail("enabled", "must be true or false")
			}
		default:
			if problem.Full(errs) {
				continue // the problem lists no more; spare the search for a close name
			}
			fail(m.Name, "unknown member (a webhook has %s)%s", strings.Join(known, ", "), suggest.Hint(m.Name, known))
		}
	}
	return in, given, errs, nil
}

// noMembers reads the body of a request that takes nothing but the id in
// its path (a delete, a test), as a record's delete reads its body:
// nothing, spaces or an empty object are no members; each member an object
// names is refused by name, why saying so, and a body that is no object is
// refused as any body is.
func noMembers(body []byte, why string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	members, err := engine.ParseBody(body)
	if err != nil || len(members) == 0 {
		return err
	}
	var errs []problem.MemberError
	for _, m := range members {
		if problem.Full(errs) {
			break // the problem lists no more
		}
		errs = append(errs, problem.MemberError{Member: m.Name, Problem: why})
	}
	return problem.Members(errs)
}

// readInput reads a webhook body and checks it whole — its members, for a
// create the members required, the URL (resolving its host) and the event
// types — reporting every problem at once, as a record's body does.
func (s *Service) readInput(ctx context.Context, body []byte, patch bool) (*input, error) {
	in, given, errs, err := decode(body, patch)
	if err != nil {
		return nil, err
	}
	if !patch {
		for _, name := range []string{"url", "events"} {
			if !given[name] {
				errs = append(errs, problem.MemberError{Member: name, Problem: "is required"})
			}
		}
	}
	if in.URL != nil {
		if err := checkURL(ctx, *in.URL, s.AllowPrivate); err != nil {
			errs = append(errs, problem.MemberError{Member: "url", Problem: err.Error()})
		}
	}
	if in.Events != nil {
		errs = append(errs, s.checkEvents(*in.Events)...)
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return in, nil
}

// checkEvents validates the event types a webhook asks for: the problems
// of the list, every one.
func (s *Service) checkEvents(list []string) []problem.MemberError {
	if len(list) == 0 || len(list) > 100 {
		return []problem.MemberError{{Member: "events", Problem: "must list 1 to 100 event types (\"*\" for all)"}}
	}
	var errs []problem.MemberError
	types := s.Log.Types()
	seen := map[string]bool{}
	for i, t := range list {
		at := fmt.Sprintf("events[%d]", i)
		switch _, known := slices.BinarySearch(types, t); {
		case seen[t]:
			errs = append(errs, problem.MemberError{Member: at, Problem: fmt.Sprintf("%q is listed twice", t)})
		case !known && t != "*":
			errs = append(errs, problem.MemberError{Member: at, Problem: fmt.Sprintf("%q is not an event type (e.g. returns.created, or \"*\")", t)})
		}
		seen[t] = true
	}
	return errs
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

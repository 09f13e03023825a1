package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/engine"
	"records/internal/events"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/spec"
	"records/internal/wire"
)

// serveWrite runs a write handler, inside the transaction of its
// Idempotency-Key when it has one.
func (s *Service) serveWrite(c *gin.Context, run func(ctx context.Context, body []byte) (*engine.Answer, error)) {
	body, err := s.Engine.ReadBody(c)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	key, keyed, err := engine.IdempotencyKey(c.Request)
	switch {
	case err != nil:
		edge.Fail(c, err)
	case keyed:
		s.Engine.ServeKeyed(c, key, body, func(ctx context.Context) (*engine.Answer, error) { return run(ctx, body) })
	default:
		bounded, cancel := edge.Bounded(c.Request.Context())
		defer cancel()
		a, err := run(bounded, body)
		if err != nil {
			edge.Fail(c, err)
			return
		}
		engine.WriteAnswer(c, a, false)
	}
}

func (s *Service) create(c *gin.Context) {
	team := teamOf(c)
	s.serveWrite(c, func(ctx context.Context, body []byte) (*engine.Answer, error) {
		in, err := s.readInput(ctx, body, false)
		if err != nil {
			return nil, err
		}
		var desc sql.NullString
		if in.Description != nil {
			desc = *in.Description
		}
		secret, err := newSecret()
		if err != nil {
			return nil, err
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		w := &Webhook{ID: "wh_" + strings.ReplaceAll(spec.NewID(), "-", ""), Team: team, URL: *in.URL,
			Events: *in.Events, Description: desc, Version: 1, CreatedAt: now, UpdatedAt: now}
		if w.Secret, err = s.sealer.Seal(w.ID, []byte(secret)); err != nil {
			return nil, err
		}
		evs, _ := json.Marshal(w.Events)
		err = s.Engine.Write(ctx, true, func(ctx context.Context, wr engine.Writer) error {
			if err := s.follow(ctx, wr, team); err != nil {
				return err
			}
			_, err := wr.Exec(ctx, `INSERT INTO "webhooks" ("id", "team_id", "url", "events", "description", "secret", "version", "created_at", "updated_at")
VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`, w.ID, team, w.URL, string(evs), w.Description, w.Secret, now, now)
			return err
		})
		if err != nil {
			return nil, err
		}
		return &engine.Answer{Status: http.StatusCreated, Body: appendWebhook(nil, w, secret), ETag: engine.ETag(w.Version), Secret: true}, nil
	})
}

func (s *Service) update(c *gin.Context) {
	team, id := teamOf(c), c.Param("id")
	s.serveWrite(c, func(ctx context.Context, body []byte) (*engine.Answer, error) {
		cond, err := engine.ReadConditions(c.Request)
		if err != nil {
			return nil, err
		}
		in, err := s.readInput(ctx, body, true)
		if err != nil {
			return nil, err
		}
		var sets []string
		var args []any
		if in.URL != nil {
			sets, args = append(sets, `"url" = ?`), append(args, *in.URL)
		}
		if in.Events != nil {
			evs, _ := json.Marshal(*in.Events)
			sets, args = append(sets, `"events" = ?`), append(args, string(evs))
		}
		if in.Description != nil {
			sets, args = append(sets, `"description" = ?`), append(args, *in.Description)
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		if in.Enabled != nil && *in.Enabled {
			sets = append(sets, `"disabled_at" = NULL`, `"failing_since" = NULL`)
		}
		if in.Enabled != nil && !*in.Enabled {
			sets, args = append(sets, `"disabled_at" = COALESCE("disabled_at", ?)`), append(args, now)
		}
		var w *Webhook
		err = s.Engine.Write(ctx, true, func(ctx context.Context, wr engine.Writer) error {
			sets = append(sets, `"version" = "version" + 1`, `"updated_at" = ?`)
			var b strings.Builder
			b.WriteString(`UPDATE "webhooks" SET ` + strings.Join(sets, ", ") + ` WHERE "id" = ? AND "team_id" = ?`)
			args := cond.AppendVersion(&b, append(args, now, id, team))
			n, err := wr.Exec(ctx, b.String(), args...)
			if err == nil && n == 0 {
				return cond.Unmet("webhook", id)
			}
			if err == nil {
				w, err = s.find(ctx, wr, team, id)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		s.forget(id)
		return &engine.Answer{Status: http.StatusOK, Body: appendWebhook(nil, w, ""), ETag: engine.ETag(w.Version)}, nil
	})
}

func (s *Service) remove(c *gin.Context) {
	team, id := teamOf(c), c.Param("id")
	s.serveWrite(c, func(ctx context.Context, body []byte) (*engine.Answer, error) {
		if err := noMembers(body, "a delete takes no members (the id is in the path)"); err != nil {
			return nil, err
		}
		cond, err := engine.ReadConditions(c.Request)
		if err != nil {
			return nil, err
		}
		err = s.Engine.Write(ctx, true, func(ctx context.Context, wr engine.Writer) error {
			var b strings.Builder
			b.WriteString(`DELETE FROM "webhooks" WHERE "id" = ? AND "team_id" = ?`)
			args := cond.AppendVersion(&b, []any{id, team})
			n, err := wr.Exec(ctx, b.String(), args...)
			if err == nil && n == 0 {
				return cond.Unmet("webhook", id)
			}
			if err == nil {
				_, err = wr.Exec(ctx, `DELETE FROM "webhook_deliveries" WHERE "webhook_id" = ? AND "team_id" = ?`, id, team)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		s.forget(id)
		b := append([]byte(`{"id":`), wire.AppendString(nil, id)...)
		return &engine.Answer{Status: http.StatusOK, Body: append(b, `,"object":"webhook","deleted":true}`...)}, nil
	})
}

func (s *Service) get(c *gin.Context) {
	bounded, cancel := edge.Bounded(c.Request.Context())
	defer cancel()
	cond, err := engine.ReadConditions(c.Request)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	w, err := s.find(bounded, s.DB, teamOf(c), c.Param("id"))
	if err != nil {
		edge.Fail(c, err)
		return
	}
	c.Writer.Header().Set("ETag", engine.ETag(w.Version))
	if cond.NotModified(w.Version) {
		c.Status(http.StatusNotModified)
		return
	}
	edge.WriteJSON(c, http.StatusOK, func(b []byte) []byte { return appendWebhook(b, w, "") })
}

// page reads a page's parameters, from the body and the query string (as
// the event log's): limit and a cursor bound to binding.
func (s *Service) page(c *gin.Context, binding query.Binding) (limit int, after string, err error) {
	limit, cursor, err := events.PageParams(c, s.Engine)
	if err != nil {
		return 0, "", err
	}
	if v := cursor; v != "" {
		if after, err = s.Cursors.DecodeID(v, binding); err != nil {
			return 0, "", problem.Member("cursor", "%v", err)
		}
	}
	return limit, after, nil
}

// appendPaging appends a page's paging: next is the cursor of the next
// page when this one is full, resume the position after its last item
// (the request's own when it has none).
func appendPaging(b []byte, limit int, next, resume string) []byte {
	b = append(b, `,"paging":{"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, next != "")
	b = append(b, `,"next_cursor":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = wire.AppendString(b, next)
	}
	b = append(b, `,"resume_cursor":`...)
	b = wire.AppendString(b, resume)
	return append(b, "}}"...)
}

func (s *Service) list(c *gin.Context) {
	team := teamOf(c)
	binding := query.Binding{Resource: "webhooks", Team: team}
	limit, after, err := s.page(c, binding)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	answerPage(c, s, binding, limit, after, "webhooks", webhookColumns+` WHERE "team_id" = ? AND "id" > ? ORDER BY "id" LIMIT ?`,
		[]any{team, after, limit}, scanWebhook, func(w *Webhook) string { return w.ID },
		func(b []byte, w *Webhook) []byte { return appendWebhook(b, w, "") })
}

// answerPage reads up to limit rows of text and answers them as
// {"<member>":[…],"paging":{…}}, with the cursor of the last when the
// page is full; after is the id the request's cursor held ("" for none).
func answerPage[T any](c *gin.Context, s *Service, binding query.Binding, limit int, after, member, text string, args []any,
	scan func(*sql.Rows) (T, error), id func(T) string, appendItem func([]byte, T) []byte) {
	bounded, cancel := edge.Bounded(c.Request.Context())
	defer cancel()
	var list []T
	err := s.DB.Each(bounded, limit, text, args, func(rows *sql.Rows) error {
		item, err := scan(rows)
		list = append(list, item)
		return err
	})
	if err != nil {
		edge.Fail(c, err)
		return
	}
	if len(list) > 0 {
		after = id(list[len(list)-1])
	}
	next, resume := "", s.Cursors.EncodeID(binding, after)
	if len(list) == limit {
		next = resume
	}
	edge.WriteJSON(c, http.StatusOK, func(b []byte) []byte {
		b = append(b, `{"`+member+`":[`...)
		for i, item := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendItem(b, item)
		}
		b = append(b, ']')
		return appendPaging(b, limit, next, resume)
	})
}

// Register puts the webhook routes (spec.ServiceRoutes) on r.
func (s *Service) Register(r *edge.Router) {
	handlers := map[string]gin.HandlerFunc{
		spec.OpCreateWebhook:         s.create,
		spec.OpListWebhooks:          s.list,
		spec.OpGetWebhook:            s.get,
		spec.OpUpdateWebhook:         s.update,
		spec.OpDeleteWebhook:         s.remove,
		spec.OpListWebhookDeliveries: s.deliveries,
		spec.OpTestWebhook:           s.test,
	}
	for op, h := range handlers {
		if !strings.Contains(spec.Service(op).Path, ":id") {
			continue
		}
		// An id no webhook can have (invalid UTF-8, control characters) is
		// not looked up.
		handlers[op] = func(c *gin.Context) {
			if id := c.Param("id"); wire.CheckID(id) != nil {
				edge.Fail(c, problem.New(problem.NotFound, "no webhook has id %s", strconv.Quote(id)))
				return
			}
			h(c)
		}
	}
	r.HandleServices("Webhook", handlers)
}

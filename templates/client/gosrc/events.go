package client

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/url"
	"strings"
	"time"
)

// Event is one committed change of a record.
type Event struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"` // <plural>.created, .updated, .deleted, .restored or .purged
	OccurredAt time.Time `json:"occurred_at"`
	TeamID     int64     `json:"team_id"`
	Data       EventData `json:"data"`
	RequestID  *string   `json:"request_id"`
	Actor      *Actor    `json:"actor"`
	// RevertedFrom is, on the update a revert wrote, the version whose
	// members it restored; nil on any other event.
	RevertedFrom *int64 `json:"reverted_from,omitempty"`
}

// EventData holds the record after the change ({id} for a delete).
type EventData struct {
	Object json.RawMessage `json:"object"`
}

// Decode decodes the event's record into v, e.g. a *Return.
func (e *Event) Decode(v any) error { return json.Unmarshal(e.Data.Object, v) }

// Actor is the token that made a change.
type Actor struct {
	TokenID   *string `json:"token_id"`
	TokenName *string `json:"token_name"`
}

// EventPage is a page of events.
type EventPage struct {
	Events []Event      `json:"events"`
	Paging CursorPaging `json:"paging"`
}

func (r *EventPage) page() ([]Event, *string) { return r.Events, r.Paging.NextCursor }

// EventParams narrow and page the event log.
type EventParams struct {
	Limit  int       // 1 to 1000; 100 when 0
	Cursor string    // a page's Paging.NextCursor, or a stream's cursor
	Types  []string  // only events of these types, e.g. "returns.created"
	Since  time.Time // only events at or after this time, when not zero
}

func (p *EventParams) query() url.Values {
	var q url.Values
	if p != nil {
		q = (&PageParams{Limit: p.Limit, Cursor: p.Cursor}).query()
		if len(p.Types) > 0 {
			q.Set("filter[type][in]", strings.Join(p.Types, ","))
		}
		if !p.Since.IsZero() {
			q.Set("since", p.Since.Format(time.RFC3339Nano))
		}
	}
	return q
}

func (p *EventParams) after(cursor string) { p.Cursor = cursor }

// EventService reads the team's event log.
type EventService struct{ c *Client }

// List sends GET /v1/events: a page of the team's events, oldest first.
// On the last page NextCursor is nil; asking its cursor again later answers
// what has been committed since.
func (s *EventService) List(ctx context.Context, p *EventParams, opts ...RequestOption) (*EventPage, error) {
	return send[EventPage](ctx, s.c, call{method: "GET", path: "/v1/events", query: p.query()}, opts)
}

// All iterates over the events of every page, to the last committed yet.
func (s *EventService) All(ctx context.Context, p *EventParams, opts ...RequestOption) iter.Seq2[Event, error] {
	return all(p, func(p *EventParams) (*EventPage, error) { return s.List(ctx, p, opts...) }, (*EventPage).page)
}

// Stream sends GET /v1/events/stream: each event once, as it is committed,
// from after p.Cursor (a page's cursor or an earlier stream's Cursor), or,
// without one, from the time of the call. Only p.Cursor and p.Types count.
// The stream ends with ctx, or with Close.
func (s *EventService) Stream(ctx context.Context, p *EventParams, opts ...RequestOption) (*EventStream, error) {
	q := url.Values{}
	if p != nil && p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	if p != nil && len(p.Types) > 0 {
		q.Set("filter[type][in]", strings.Join(p.Types, ","))
	}
	resp, err := s.c.open(ctx, call{method: "GET", path: "/v1/events/stream", query: q}, "text/event-stream", opts)
	if err != nil {
		return nil, err
	}
	return &EventStream{body: resp.Body, lines: bufio.NewReader(resp.Body)}, nil
}

// EventStream is an open stream of events (Server-Sent Events).
type EventStream struct {
	body  io.ReadCloser
	lines *bufio.Reader
	// Cursor is the position after the last event Next returned: resume
	// there with EventParams.Cursor.
	Cursor string
}

// Next waits for the next event; at the stream's end it returns io.EOF.
func (s *EventStream) Next() (*Event, error) {
	var data []string
	for {
		line, err := s.lines.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "" && len(data) > 0:
			e := &Event{}
			if err := json.Unmarshal([]byte(strings.Join(data, "\n")), e); err != nil {
				return nil, err
			}
			return e, nil
		case field == "data":
			data = append(data, value)
		case field == "id":
			s.Cursor = value
		}
	}
}

// Close ends the stream.
func (s *EventStream) Close() error { return s.body.Close() }

// Webhook is an endpoint events are delivered to.
type Webhook struct {
	ID          string     `json:"id"`
	URL         string     `json:"url"`
	Events      []string   `json:"events"`
	Description *string    `json:"description"`
	Enabled     bool       `json:"enabled"`
	DisabledAt  *time.Time `json:"disabled_at"`
	Version     int64      `json:"version"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// WebhookCreated is a new webhook with its signing secret, shown only here.
type WebhookCreated struct {
	Webhook
	Secret string `json:"secret"`
}

// WebhookInput makes a webhook.
type WebhookInput struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"` // event types; "*" is every type
	Description *string  `json:"description,omitempty"`
}

// WebhookPatch changes the members given; Enabled true turns a disabled
// webhook back on.
type WebhookPatch struct {
	URL         Optional[string]   `json:"url,omitzero"`
	Events      Optional[[]string] `json:"events,omitzero"`
	Description Optional[string]   `json:"description,omitzero"`
	Enabled     Optional[bool]     `json:"enabled,omitzero"`
}

// WebhookPage is a page of webhooks.
type WebhookPage struct {
	Webhooks []Webhook    `json:"webhooks"`
	Paging   CursorPaging `json:"paging"`
}

func (r *WebhookPage) page() ([]Webhook, *string) { return r.Webhooks, r.Paging.NextCursor }

// WebhookDeleted answers a webhook's delete.
type WebhookDeleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// Delivery is one attempt to deliver an event to a webhook.
type Delivery struct {
	ID            string     `json:"id"`
	EventID       string     `json:"event_id"`
	Attempt       int        `json:"attempt"`
	Status        string     `json:"status"` // pending, delivered or failed
	StatusCode    *int       `json:"status_code"`
	Error         *string    `json:"error"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	DeliveredAt   *time.Time `json:"delivered_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// DeliveryPage is a page of a webhook's delivery attempts.
type DeliveryPage struct {
	Deliveries []Delivery   `json:"deliveries"`
	Paging     CursorPaging `json:"paging"`
}

func (r *DeliveryPage) page() ([]Delivery, *string) { return r.Deliveries, r.Paging.NextCursor }

// WebhookService manages the team's webhooks.
type WebhookService struct{ c *Client }

// Create sends POST /v1/webhooks: events of the listed types are delivered
// to the URL, signed with the secret the answer holds.
func (s *WebhookService) Create(ctx context.Context, in WebhookInput, opts ...RequestOption) (*WebhookCreated, error) {
	return send[WebhookCreated](ctx, s.c, call{method: "POST", path: "/v1/webhooks", body: in}, opts)
}

// List sends GET /v1/webhooks: a page of webhooks.
func (s *WebhookService) List(ctx context.Context, p *PageParams, opts ...RequestOption) (*WebhookPage, error) {
	return send[WebhookPage](ctx, s.c, call{method: "GET", path: "/v1/webhooks", query: p.query()}, opts)
}

// All iterates over the webhooks of every page.
func (s *WebhookService) All(ctx context.Context, p *PageParams, opts ...RequestOption) iter.Seq2[Webhook, error] {
	return all(p, func(p *PageParams) (*WebhookPage, error) { return s.List(ctx, p, opts...) }, (*WebhookPage).page)
}

// Get sends GET /v1/webhooks/:id.
func (s *WebhookService) Get(ctx context.Context, id string, opts ...RequestOption) (*Webhook, error) {
	return send[Webhook](ctx, s.c, call{method: "GET", path: "/v1/webhooks/:id", id: id, idIn: inPath}, opts)
}

// Update sends PATCH /v1/webhooks/:id.
func (s *WebhookService) Update(ctx context.Context, id string, in WebhookPatch, opts ...RequestOption) (*Webhook, error) {
	return send[Webhook](ctx, s.c, call{method: "PATCH", path: "/v1/webhooks/:id", id: id, idIn: inPath, body: in}, opts)
}

// Delete sends DELETE /v1/webhooks/:id: the webhook and its pending deliveries.
func (s *WebhookService) Delete(ctx context.Context, id string, opts ...RequestOption) (*WebhookDeleted, error) {
	return send[WebhookDeleted](ctx, s.c, call{method: "DELETE", path: "/v1/webhooks/:id", id: id, idIn: inPath}, opts)
}

// Deliveries sends GET /v1/webhooks/:id/deliveries: attempts, newest first.
func (s *WebhookService) Deliveries(ctx context.Context, id string, p *PageParams, opts ...RequestOption) (*DeliveryPage, error) {
	return send[DeliveryPage](ctx, s.c, call{method: "GET", path: "/v1/webhooks/:id/deliveries", id: id, idIn: inPath, query: p.query()}, opts)
}

// Test sends POST /v1/webhooks/:id/test: queues a delivery of an event of
// type webhook.test, and answers it.
func (s *WebhookService) Test(ctx context.Context, id string, opts ...RequestOption) (*Delivery, error) {
	r, err := send[struct {
		Delivery Delivery `json:"delivery"`
	}](ctx, s.c, call{method: "POST", path: "/v1/webhooks/:id/test", id: id, idIn: inPath}, opts)
	if err != nil {
		return nil, err
	}
	return &r.Delivery, nil
}

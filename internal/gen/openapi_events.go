package gen

import (
	"records/internal/spec"
	"slices"
	"strconv"
)

// The event routes (package events) and the webhook routes (package
// webhooks) are served by hand-written packages, not by the route table;
// their part of the document is written here, from the same resources.

// eventTypes are every event type, sorted.
func eventTypes(m *apiModel) []any {
	var types []string
	for _, r := range m.Resources {
		for _, a := range []string{"created", "updated", "deleted", "restored", "purged"} {
			types = append(types, r.Plural+"."+a)
		}
	}
	slices.Sort(types)
	out := make([]any, len(types))
	for i, t := range types {
		out[i] = t
	}
	return out
}

// withErrors adds the error responses of statuses to responses. Where
// statuses hold every status of a range (commonErrors), the range's one
// response stands for them (4XX, 5XX), and the statuses particular to the
// operation are named on their own: a 404, 409, 412 or 422 says more than
// the range, and an explicit status wins over a range in OpenAPI.
func withErrors(responses *obj, statuses ...int) *obj {
	folded := map[int]bool{}
	for _, r := range commonErrors {
		if !containsAll(statuses, r.statuses) {
			continue
		}
		for _, s := range r.statuses {
			folded[s] = true
		}
	}
	for _, s := range statuses {
		if !folded[s] {
			responses.set(strconv.Itoa(s), responseRef(errorResponses[s]))
		}
	}
	for _, r := range commonErrors {
		if containsAll(statuses, r.statuses) {
			responses.set(r.key, responseRef(r.name))
		}
	}
	return responses
}

// errorRange is a response of a status range (4XX) that stands for the
// statuses every operation reading a body may answer.
type errorRange struct {
	key, name string
	statuses  []int
}

// commonErrors are the ranges withErrors folds: the client's faults any
// operation that reads a body may meet (a bad body or parameter, no or a
// bad token, a role that may not, a slow, large or non-JSON body, the
// rate limit), and the server's faults any operation may meet.
var commonErrors = []errorRange{
	{"4XX", "ClientError", []int{400, 401, 403, 408, 413, 415, 429}},
	{"5XX", "ServerError", []int{500, 503}},
}

func containsAll(statuses, want []int) bool {
	for _, w := range want {
		if !slices.Contains(statuses, w) {
			return false
		}
	}
	return true
}

func jsonAnswer(desc string, schema *obj) *obj {
	return newObj("description", desc,
		"headers", newObj("X-Request-Id", headerRef("X-Request-Id")),
		"content", newObj("application/json", newObj("schema", schema)))
}

func queryParam(name, desc string, schema *obj) *obj {
	return newObj("name", name, "in", "query", "description", desc, "schema", schema)
}

// readBody is the optional JSON body of a read, whose parameters it may
// carry instead of the query string (the body wins where both give one).
func readBody(schema string) *obj {
	return newObj("content", newObj("application/json", newObj("schema", ref(schema))))
}

// readErrors are the error statuses of a read that takes a body.
var readErrors = []int{400, 401, 403, 408, 413, 415, 429, 500, 503}

// withReadErrors adds readErrors and the further statuses to responses.
func withReadErrors(responses *obj, more ...int) *obj {
	statuses := slices.Sorted(slices.Values(append(slices.Clone(readErrors), more...)))
	return withErrors(responses, statuses...)
}

// eventPageParams are the parameters of a page of events, webhooks or
// deliveries.
func eventPageParams() []any { return []any{paramRef("PageLimit"), paramRef("PageCursor")} }

// addEventPaths puts the event log, the stream, every resource's history
// and the webhook routes in paths.
func addEventPaths(m *apiModel, put putOperation) {
	logParams := append(eventPageParams(),
		queryParam("filter[type]", "Only events of this type.", ref("EventType")),
		queryParam("filter[type][in]", "Only events of these types, comma-separated.", newObj("type", "string")),
		queryParam("since", "Only events that occurred at or after this time (RFC 3339).", newObj("type", "string", "format", "date-time")),
	)
	service(put, spec.OpListEvents, newObj(
		"operationId", "listEvents", "tags", []any{"Events"}, "summary", "List events",
		"description", "The team's events, oldest first, each once, in commit order: follow paging.next_cursor; "+
			"on the last page next_cursor is null, and asking the same cursor again later answers the page grown by what has been committed since. "+
			"Events are kept for 30 days unless the server is configured otherwise.",
		"parameters", logParams,
		"requestBody", readBody("EventLogRequest"),
		"responses", withReadErrors(newObj("200", jsonAnswer("A page of events.", ref("EventPage")))),
	))
	service(put, spec.OpStreamEvents, newObj(
		"operationId", "streamEvents", "tags", []any{"Events"}, "summary", "Stream events",
		"description", "Server-Sent Events: each event once, as data: with the event's JSON, and id: a cursor. "+
			"Reconnect with Last-Event-ID (or cursor) to resume after it with nothing lost; without either, the stream starts with events committed after connecting. "+
			"An idle stream sends a comment line every 15 seconds.",
		"parameters", []any{
			queryParam("cursor", "Resume after this cursor.", ref("Cursor")),
			queryParam("filter[type]", "Only events of this type.", ref("EventType")),
			queryParam("filter[type][in]", "Only events of these types, comma-separated.", newObj("type", "string")),
			newObj("name", "Last-Event-ID", "in", "header", "description", "The id: of the last event received; wins over cursor.", "schema", newObj("type", "string")),
		},
		"requestBody", readBody("EventStreamRequest"),
		"responses", withReadErrors(newObj("200", newObj("description", "The stream.",
			"content", newObj("text/event-stream", newObj("schema", newObj("type", "string")))))),
	))
	for _, r := range m.Resources {
		put("GET", "/v1/"+r.Plural+"/:id/history", newObj(
			"operationId", "history"+r.Name, "tags", []any{r.Type}, "summary", "History of a "+r.Object,
			"parameters", append([]any{paramRef("Id")}, eventPageParams()...),
			"requestBody", readBody("PageRequest"),
			"responses", withReadErrors(newObj("200", jsonAnswer("A page of the record's events.", ref("EventPage"))), 404),
		))
	}
	addWebhookPaths(m, put)
}

// addEventSchemas puts the schemas of events and webhooks in c.
func addEventSchemas(m *apiModel, c *catalog) {
	c.define("EventType", newObj("type", "string", "enum", eventTypes(m), "description", "<plural>.created, .updated, .deleted (moved to the trash), .restored (out of it) or .purged (erased for good)."))
	c.define("Actor", newObj("type", "object", "properties", newObj(
		"token_id", newObj("type", []any{"string", "null"}),
		"token_name", newObj("type", []any{"string", "null"}),
	), "required", []any{"token_id", "token_name"}, "additionalProperties", false))
	c.define("ActorOrNull", newObj("oneOf", []any{newObj("type", "null"), ref("Actor")}, "description", "The token that made the change."))
	c.define("EventData", newObj("type", "object", "properties", newObj(
		"object", newObj("type", "object", "properties", newObj("id", newObj("type", "string")), "required", []any{"id"},
			"description", "The record after the change, as a read answered it then (embedded lists empty: their records have events of their own); {id} for a delete (a move to the trash) and a purge."),
	), "required", []any{"object"}, "additionalProperties", false))
	c.define("Event", newObj("type", "object",
		"properties", newObj(
			"id", newObj("type", "string", "description", "evt_ and 26 characters: opaque, the same wherever the event is answered (the log, the stream, a history, a webhook's delivery and its webhook-id)."),
			"type", ref("EventType"),
			"occurred_at", newObj("type", "string", "format", "date-time"),
			"team_id", newObj("type", "integer"),
			"data", ref("EventData"),
			"request_id", newObj("type", []any{"string", "null"}, "description", "The X-Request-Id of the request that made the change."),
			"actor", ref("ActorOrNull"),
			"reverted_from", newObj("type", "integer", "description", "On the update a revert wrote: the version whose members it restored."),
		),
		"required", []any{"id", "type", "occurred_at", "team_id", "data", "request_id", "actor"}, "additionalProperties", false))
	c.define("PageRequest", newObj("type", "object",
		"properties", newObj("limit", ref("Limit"), "cursor", ref("Cursor")),
		"additionalProperties", false, "description", "A page's parameters in a body."))
	c.define("EventTypeEquals", newObj("type", "object", "properties", newObj("eq", ref("EventType")),
		"required", []any{"eq"}, "additionalProperties", false))
	c.define("EventTypeIn", newObj("type", "object", "properties", newObj("in", newObj("type", "array", "minItems", 1, "items", ref("EventType"))),
		"required", []any{"in"}, "additionalProperties", false))
	c.define("EventTypeCondition", newObj("oneOf", []any{ref("EventType"), ref("EventTypeEquals"), ref("EventTypeIn")}))
	c.define("EventFilter", newObj("type", "object",
		"properties", newObj("type", ref("EventTypeCondition")),
		"additionalProperties", false, "description", `Only events of a type: {"type": T}, {"type": {"eq": T}} or {"type": {"in": [T, …]}}.`))
	c.define("EventLogRequest", newObj("type", "object",
		"properties", newObj("limit", ref("Limit"), "cursor", ref("Cursor"), "filter", ref("EventFilter"),
			"since", newObj("type", "string", "format", "date-time", "description", "Only events that occurred at or after this time (RFC 3339).")),
		"additionalProperties", false, "description", "The event log's parameters in a body."))
	c.define("EventStreamRequest", newObj("type", "object",
		"properties", newObj("cursor", ref("Cursor"), "filter", ref("EventFilter")),
		"additionalProperties", false, "description", "The stream's parameters in a body."))
	c.define("CursorPaging", newObj("type", "object",
		"properties", newObj(
			"limit", newObj("type", "integer"),
			"has_more", newObj("type", "boolean"),
			"next_cursor", newObj("type", []any{"string", "null"}, "description", "Send as cursor for the next page; null on the last page."),
			"resume_cursor", newObj("type", "string", "description", "The position after this page's last item (the request's own when the page is empty): "+
				"a follower keeps it, to ask later for what comes after without reading this page again."),
		),
		"required", []any{"limit", "has_more", "next_cursor", "resume_cursor"}, "additionalProperties", false))
	c.define("EventPage", newObj("type", "object",
		"properties", newObj("events", newObj("type", "array", "items", ref("Event")), "paging", ref("CursorPaging")),
		"required", []any{"events", "paging"}, "additionalProperties", false))
	addWebhookSchemas(m, c)
}

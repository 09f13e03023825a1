package gen

import "records/internal/spec"

// addWebhookPaths puts the webhook routes (spec.ServiceRoutes) in paths.
func addWebhookPaths(m *apiModel, put putOperation) {
	write := func(o *obj) *obj {
		o.set("parameters", append(anyList(o.vals["parameters"]), newObj("name", "Idempotency-Key", "in", "header",
			"description", "Makes the write safe to retry: a retry with the key answers the first answer.", "schema", newObj("type", "string"))))
		return o
	}
	body := func(schema string) *obj {
		return newObj("required", true, "content", newObj("application/json", newObj("schema", ref(schema))))
	}
	// A webhook has a version, as a record does: its ETag, If-None-Match
	// on a read, If-Match on a write.
	withETag := func(answer *obj) *obj {
		answer.vals["headers"].(*obj).set("ETag", headerRef("ETag"))
		return answer
	}
	webhookID := paramRef("WebhookId")
	service(put, spec.OpCreateWebhook, write(newObj(
		"operationId", "createWebhook", "tags", []any{"Webhooks"}, "summary", "Create a webhook",
		"description", "Events of the listed types (\"*\": all) are delivered to the URL by POST, signed as Standard Webhooks specifies. "+
			"The answer holds the signing secret; it is never shown again.",
		"requestBody", body("WebhookInput"),
		"responses", withErrors(newObj("201", withETag(jsonAnswer("The webhook, with its secret.", ref("WebhookCreated")))), 400, 401, 403, 408, 409, 413, 415, 422, 429, 500, 503),
	)))
	service(put, spec.OpListWebhooks, newObj(
		"operationId", "listWebhooks", "tags", []any{"Webhooks"}, "summary", "List webhooks",
		"parameters", eventPageParams(),
		"requestBody", readBody("PageRequest"),
		"responses", withReadErrors(newObj("200", jsonAnswer("A page of webhooks.", ref("WebhookPage")))),
	))
	service(put, spec.OpGetWebhook, newObj(
		"operationId", "getWebhook", "tags", []any{"Webhooks"}, "summary", "Get a webhook",
		"parameters", []any{webhookID, paramRef("IfNoneMatch")},
		"responses", withErrors(newObj("200", withETag(jsonAnswer("The webhook.", ref("Webhook"))), "304", responseRef("NotModified")), 400, 401, 403, 404, 429, 500, 503),
	))
	service(put, spec.OpUpdateWebhook, write(newObj(
		"operationId", "updateWebhook", "tags", []any{"Webhooks"}, "summary", "Update a webhook",
		"description", "Changes the members given; enabled: true turns a disabled webhook back on.",
		"parameters", []any{webhookID, paramRef("IfMatch")},
		"requestBody", body("WebhookPatch"),
		"responses", withErrors(newObj("200", withETag(jsonAnswer("The webhook.", ref("Webhook")))), 400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503),
	)))
	service(put, spec.OpDeleteWebhook, write(newObj(
		"operationId", "deleteWebhook", "tags", []any{"Webhooks"}, "summary", "Delete a webhook",
		"description", "Deletes the webhook and its pending deliveries.",
		"parameters", []any{webhookID, paramRef("IfMatch")},
		"responses", withErrors(newObj("200", jsonAnswer("Deleted.", ref("WebhookDeleted"))), 400, 401, 403, 404, 409, 412, 422, 429, 500, 503),
	)))
	service(put, spec.OpListWebhookDeliveries, newObj(
		"operationId", "listWebhookDeliveries", "tags", []any{"Webhooks"}, "summary", "List a webhook's deliveries",
		"description", "Every attempt to deliver an event to the webhook, newest first.",
		"parameters", append([]any{webhookID}, eventPageParams()...),
		"requestBody", readBody("PageRequest"),
		"responses", withReadErrors(newObj("200", jsonAnswer("A page of attempts.", ref("DeliveryPage"))), 404),
	))
	service(put, spec.OpTestWebhook, write(newObj(
		"operationId", "testWebhook", "tags", []any{"Webhooks"}, "summary", "Send a test event",
		"description", "Queues a delivery of an event of type webhook.test to the webhook, and answers it.",
		"parameters", []any{webhookID},
		"responses", withErrors(newObj("202", jsonAnswer("The delivery, queued.", ref("DeliveryQueued"))),
			400, 401, 403, 404, 409, 422, 429, 500, 503),
	)))
}

// service puts the operation o of the service route named op in paths.
func service(put putOperation, op string, o *obj) {
	rt := spec.Service(op)
	put(rt.Method, rt.Path, o)
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// addWebhookSchemas puts the webhook schemas in c.
func addWebhookSchemas(m *apiModel, c *catalog) {
	c.define("WebhookEventType", newObj("type", "string", "enum", append([]any{"*"}, eventTypes(m)...)))
	events := newObj("type", "array", "minItems", 1, "maxItems", 100, "uniqueItems", true,
		"items", ref("WebhookEventType"), "description", "The event types delivered; \"*\" is every type.")
	url := newObj("type", "string", "format", "uri", "maxLength", 2048,
		"description", "An http or https URL. Addresses of loopback, private, link-local and metadata networks are refused unless the server allows them.")
	props := func() *obj {
		return newObj(
			"id", newObj("type", "string"),
			"url", newObj("type", "string"),
			"events", newObj("type", "array", "items", newObj("type", "string")),
			"description", newObj("type", []any{"string", "null"}),
			"enabled", newObj("type", "boolean", "description", "false once the server has disabled the webhook after 3 days of failures, or a client did."),
			"disabled_at", newObj("type", []any{"string", "null"}, "format", "date-time"),
			"version", newObj("type", "integer"),
			"created_at", newObj("type", "string", "format", "date-time"),
			"updated_at", newObj("type", "string", "format", "date-time"),
		)
	}
	required := []any{"id", "url", "events", "description", "enabled", "disabled_at", "version", "created_at", "updated_at"}
	c.define("Webhook", newObj("type", "object", "properties", props(), "required", required, "additionalProperties", false))
	c.define("WebhookCreated", newObj("type", "object",
		"properties", props().set("secret", newObj("type", "string", "description", "whsec_ and the base64 key that signs deliveries: shown only here.")),
		"required", append(append([]any{}, required...), "secret"), "additionalProperties", false))
	c.define("WebhookInput", newObj("type", "object",
		"properties", newObj("url", url, "events", events, "description", newObj("type", []any{"string", "null"}, "maxLength", spec.MaxWebhookDescription)),
		"required", []any{"url", "events"}, "additionalProperties", false))
	c.define("WebhookPatch", newObj("type", "object",
		"properties", newObj("url", url.copy(), "events", events.copy(), "description", newObj("type", []any{"string", "null"}, "maxLength", spec.MaxWebhookDescription),
			"enabled", newObj("type", "boolean")),
		"additionalProperties", false))
	c.define("Delivery", newObj("type", "object",
		"properties", newObj(
			"id", newObj("type", "string"),
			"event_id", newObj("type", "string"),
			"attempt", newObj("type", "integer", "description", "1 for the first attempt."),
			"status", newObj("type", "string", "enum", []any{"pending", "delivered", "failed"}),
			"status_code", newObj("type", []any{"integer", "null"}, "description", "The endpoint's HTTP status, if it answered."),
			"error", newObj("type", []any{"string", "null"}),
			"next_attempt_at", newObj("type", []any{"string", "null"}, "format", "date-time", "description", "When a pending attempt is due."),
			"delivered_at", newObj("type", []any{"string", "null"}, "format", "date-time"),
			"created_at", newObj("type", "string", "format", "date-time"),
		),
		"required", []any{"id", "event_id", "attempt", "status", "status_code", "error", "next_attempt_at", "delivered_at", "created_at"},
		"additionalProperties", false))
	c.define("WebhookPage", newObj("type", "object",
		"properties", newObj("webhooks", newObj("type", "array", "items", ref("Webhook")), "paging", ref("CursorPaging")),
		"required", []any{"webhooks", "paging"}, "additionalProperties", false))
	c.define("WebhookDeleted", newObj("type", "object",
		"properties", newObj("id", newObj("type", "string"), "object", newObj("const", "webhook"), "deleted", newObj("const", true)),
		"required", []any{"id", "object", "deleted"}, "additionalProperties", false))
	c.define("DeliveryPage", newObj("type", "object",
		"properties", newObj("deliveries", newObj("type", "array", "items", ref("Delivery")), "paging", ref("CursorPaging")),
		"required", []any{"deliveries", "paging"}, "additionalProperties", false))
	c.define("DeliveryQueued", newObj("type", "object",
		"properties", newObj("delivery", ref("Delivery")), "required", []any{"delivery"}, "additionalProperties", false))
}

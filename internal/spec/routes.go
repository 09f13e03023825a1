package spec

// DeprecationDate is 2026-01-01T00:00:00Z, the day the reference's sample
// routes were deprecated, as an RFC 9745 structured date: the value of the
// Deprecation header of every answer of a deprecated route.
const DeprecationDate = "@1767225600"

// DeprecationDay is DeprecationDate as a calendar day, for documents.
const DeprecationDay = "2026-01-01"

// PublicRoute is a route outside the generated operations that the server
// registers itself and that needs no token: health, metrics, the OpenAPI
// document, the docs page and the console. All answer GET. The OpenAPI document lists
// them too, and a test compares the document with the server's routes.
type PublicRoute struct {
	Path        string // gin's pattern, e.g. /docs/assets/:file
	OperationID string
	Summary     string
	ContentType string
}

// The public routes' paths.
const (
	PathOpenAPI     = "/v1/openapi.json"
	PathDocs        = "/docs"
	PathDocsFile    = "/docs/assets/:file"
	PathConsole     = "/console"
	PathConsoleFile = "/console/assets/:file"
	PathMetrics     = "/metrics"
	PathHealth      = "/healthz"
	PathReady       = "/readyz"
	// PathMe answers who the caller is and what its role may do (DESIGN
	// §15); it needs a credential, as every /v1 route but the document.
	PathMe = "/v1/me"
)

// PublicRoutes are the public routes, in the order the document lists them.
var PublicRoutes = []PublicRoute{
	{PathOpenAPI, "openAPIDocument", "This OpenAPI document", "application/json"},
	{PathDocs, "docsPage", "The documentation page, which renders this document", "text/html"},
	{PathDocsFile, "docsAsset", "A file of the documentation page (scripts, styles)", "*/*"},
	{PathConsole, "consolePage", "The console: a web application to browse, search and edit records, and watch events", "text/html"},
	{PathConsoleFile, "consoleAsset", "A file of the console (scripts, styles), named by the hash of its content", "*/*"},
	{PathMetrics, "metrics", "Prometheus metrics: requests and latency by route, the database pool, the Go runtime", "text/plain"},
	{PathHealth, "health", "200 while the process is up", "application/json"},
	{PathReady, "readiness", "200 while the database answers, 503 when it does not", "application/json"},
}

// ServiceRoute is a route of the runtime's own services, the event log and
// the webhooks: not in the route table, the same for every specification.
// The server registers them (packages events and webhooks), the OpenAPI
// document describes them and the generated clients call them, each from
// this one list.
type ServiceRoute struct {
	Method    string // e.g. GET
	Path      string // gin's pattern, e.g. /v1/webhooks/:id
	Operation string // the name in logs and metrics, e.g. "Get Webhook"
	Kind      Kind
	Resource  string // "Event" or "Webhook"
	Call      string // the generated clients' method, e.g. "Webhooks.Get"
}

// The service routes' operations, by which their handlers and documents
// find them.
const (
	OpListEvents            = "List Events"
	OpStreamEvents          = "Stream Events"
	OpCreateWebhook         = "Create Webhook"
	OpListWebhooks          = "List Webhooks"
	OpGetWebhook            = "Get Webhook"
	OpUpdateWebhook         = "Update Webhook"
	OpDeleteWebhook         = "Delete Webhook"
	OpListWebhookDeliveries = "List Webhook Deliveries"
	OpTestWebhook           = "Test Webhook"
)

// ServiceRoutes are the service routes, in the order the clients list them.
var ServiceRoutes = []ServiceRoute{
	{"GET", "/v1/events", OpListEvents, List, "Event", "Events.List"},
	{"GET", "/v1/events/stream", OpStreamEvents, List, "Event", "Events.Stream"},
	{"POST", "/v1/webhooks", OpCreateWebhook, Create, "Webhook", "Webhooks.Create"},
	{"GET", "/v1/webhooks", OpListWebhooks, List, "Webhook", "Webhooks.List"},
	{"GET", "/v1/webhooks/:id", OpGetWebhook, Get, "Webhook", "Webhooks.Get"},
	{"PATCH", "/v1/webhooks/:id", OpUpdateWebhook, Patch, "Webhook", "Webhooks.Update"},
	{"DELETE", "/v1/webhooks/:id", OpDeleteWebhook, Delete, "Webhook", "Webhooks.Delete"},
	{"GET", "/v1/webhooks/:id/deliveries", OpListWebhookDeliveries, List, "Webhook", "Webhooks.Deliveries"},
	{"POST", "/v1/webhooks/:id/test", OpTestWebhook, Action, "Webhook", "Webhooks.Test"},
}

// Service returns the service route of the operation; it panics on a name
// not in ServiceRoutes, a mistake of the program.
func Service(operation string) ServiceRoute {
	for _, r := range ServiceRoutes {
		if r.Operation == operation {
			return r
		}
	}
	panic("spec: no service route " + operation)
}

// AggregatePosts are the plurals whose aggregate also answers POST (DESIGN
// §16): those whose GET /v1/<plural>/:id is an operation of §6 beyond a
// read of one record, for clients that cannot send a body with GET there.
var AggregatePosts = []string{"bill_of_materials_line_items", "packing_lists", "users"}

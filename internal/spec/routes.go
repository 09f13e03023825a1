package spec

// DeprecationDate is 2026-01-01T00:00:00Z, the day the reference's sample
// routes were deprecated, as an RFC 9745 structured date: the value of the
// Deprecation header of every answer of a deprecated route.
const DeprecationDate = "@1767225600"

// DeprecationDay is DeprecationDate as a calendar day, for documents.
const DeprecationDay = "2026-01-01"

// PublicRoute is a route outside the generated operations that the server
// registers itself and that needs no token: health, metrics, the OpenAPI
// document and the docs page. All answer GET. The OpenAPI document lists
// them too, and a test compares the document with the server's routes.
type PublicRoute struct {
	Path        string // gin's pattern, e.g. /docs/assets/:file
	OperationID string
	Summary     string
	ContentType string
}

// The public routes' paths.
const (
	PathOpenAPI  = "/v1/openapi.json"
	PathDocs     = "/docs"
	PathDocsFile = "/docs/assets/:file"
	PathMetrics  = "/metrics"
	PathHealth   = "/healthz"
	PathReady    = "/readyz"
)

// PublicRoutes are the public routes, in the order the document lists them.
var PublicRoutes = []PublicRoute{
	{PathOpenAPI, "openAPIDocument", "This OpenAPI document", "application/json"},
	{PathDocs, "docsPage", "The documentation page, which renders this document", "text/html"},
	{PathDocsFile, "docsAsset", "A file of the documentation page (scripts, styles)", "*/*"},
	{PathMetrics, "metrics", "Prometheus metrics: requests and latency by route, the database pool, the Go runtime", "text/plain"},
	{PathHealth, "health", "200 while the process is up", "application/json"},
	{PathReady, "readiness", "200 while the database answers, 503 when it does not", "application/json"},
}

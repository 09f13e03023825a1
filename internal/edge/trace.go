package edge

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"records/internal/spec"
	"records/internal/tracing"
)

// Trace makes each request a server span — continuing the client's trace
// when it sends a W3C traceparent — named by its route, with the request id
// among its attributes; the database calls it makes are its children.
// The server adds it only when tracing is enabled.
func Trace(c *gin.Context) {
	ctx := otel.GetTextMapPropagator().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	// A method the API does not answer is named as OpenTelemetry's
	// conventions name it, so that clients cannot make span names of
	// their own.
	method := c.Request.Method
	if !spec.KnownMethod(method) {
		method = "_OTHER"
	}
	ctx, span := tracing.Tracer().Start(ctx, method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("http.request.method", method),
			attribute.String("http.route", route),
			attribute.String("url.path", c.Request.URL.Path),
			attribute.String("request_id", RequestIDOf(c)),
		))
	defer span.End()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
	status := c.Writer.Status()
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
}

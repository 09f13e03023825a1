// Package tracing makes OpenTelemetry spans of requests and database calls
// and exports them over OTLP/HTTP when, and only when, the standard
// variables ask for it (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp; the
// other OTEL_EXPORTER_OTLP_ variables as otlp.go reads them, and
// OTEL_SERVICE_NAME and OTEL_BSP_ ones as the SDK does). Unset, nothing is
// exported and the hot paths do not so much as call the no-op tracer:
// they test Enabled first.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// name is the instrumentation scope of the service's spans.
const name = "records"

var (
	enabled atomic.Bool
	tracer  atomic.Pointer[trace.Tracer]
)

// Enabled tells whether spans are being made.
func Enabled() bool { return enabled.Load() }

// Configured tells whether the environment asks for traces.
func Configured() bool {
	if v := os.Getenv("OTEL_TRACES_EXPORTER"); v != "" {
		return v != "none"
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup starts exporting spans over OTLP (HTTP) when Configured; it
// returns the function that flushes and stops the exporter, trying each
// batch left once more at most (exporter.Drain): stopping waits for a
// collector that answers, within the function's context, never for one
// that is down. A batch that fails to go out, or that the collector took
// only in part, is a warning in log.
func Setup(log *slog.Logger) (func(context.Context) error, error) {
	if !Configured() {
		return func(context.Context) error { return nil }, nil
	}
	if v := os.Getenv("OTEL_TRACES_EXPORTER"); v != "" && v != "otlp" {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: the service exports otlp (or none)", v)
	}
	exp, err := newExporter(os.Getenv)
	if err != nil {
		return nil, err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: exporting spans", "error", err.Error())
	}))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	Use(tp)
	return func(ctx context.Context) error {
		exp.Drain()
		return tp.Shutdown(ctx)
	}, nil
}

// Use makes spans with tp from now on (Setup's provider, or a test's).
func Use(tp trace.TracerProvider) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t := tp.Tracer(name)
	tracer.Store(&t)
	enabled.Store(true)
}

// Stop makes no more spans.
func Stop() { enabled.Store(false) }

// Tracer is the service's tracer; callers check Enabled first.
func Tracer() trace.Tracer { return *tracer.Load() }

// noEnd is the end of a span never started.
func noEnd(error) {}

// Database starts the span of a database call, a child of ctx's span: its
// statement's text (never its parameters) and the database's kind. end
// records the call's error, if any, and ends it. With tracing off it
// starts nothing: ctx as it is, and an end that does nothing.
func Database(ctx context.Context, system, statement string) (context.Context, func(error)) {
	if !Enabled() {
		return ctx, noEnd
	}
	op, _, _ := strings.Cut(strings.TrimSpace(statement), " ")
	ctx, span := Tracer().Start(ctx, strings.ToUpper(op), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", system), attribute.String("db.statement", statement)))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

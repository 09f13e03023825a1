package server_test

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"records/internal/tracing"
)

// With tracing on, a request is a server span continuing the client's
// traceparent, with the request id, and its database calls are its
// children.
func TestRequestsAndDatabaseCallsAreSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	defer tracing.Stop()
	for _, d := range []string{"sqlite3", "postgres"} {
		t.Run(d, func(t *testing.T) {
			h := newHarness(t, d, testConfig())
			const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			r := h.call("POST", "/v1/customers", `{"id":"traced"}`, "traceparent", "00-"+traceID+"-"+parent+"-01").want(201)
			var server sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.Name() == "POST /v1/customers" && s.SpanContext().TraceID().String() == traceID {
					server = s
				}
			}
			if server == nil {
				t.Fatalf("no server span in the client's trace among %d spans", len(rec.Ended()))
			}
			if server.Parent().SpanID().String() != parent {
				t.Fatalf("the server span's parent is %s, want the client's %s", server.Parent().SpanID(), parent)
			}
			found := map[string]any{}
			for _, a := range server.Attributes() {
				found[string(a.Key)] = a.Value.AsInterface()
			}
			if found["request_id"] != r.Header.Get("X-Request-Id") || found["http.response.status_code"] != int64(201) {
				t.Fatalf("server span attributes: %v", found)
			}
			children := 0
			for _, s := range rec.Ended() {
				if s.Parent().SpanID() == server.SpanContext().SpanID() {
					children++
					attrs := map[string]any{}
					for _, a := range s.Attributes() {
						attrs[string(a.Key)] = a.Value.AsInterface()
					}
					if attrs["db.statement"] == nil || attrs["db.system"] == nil {
						t.Fatalf("a child span without db attributes: %s %v", s.Name(), attrs)
					}
				}
			}
			if children == 0 {
				t.Fatal("the request's database calls made no spans")
			}
		})
	}
}

// BenchmarkTracing reads a record by id with tracing off (the default: no
// span is made, nothing is exported) and on (spans made and dropped), so
// that the cost of each is measured, not assumed.
func BenchmarkTracing(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
			tracing.Use(sdktrace.NewTracerProvider())
		}
		b.Run(name, func(b *testing.B) {
			h := newHarness(b, "sqlite3", testConfig())
			h.unchecked = true
			h.call("POST", "/v1/customers", `{"id":"bench"}`).want(201)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				h.call("GET", "/v1/customers/bench", "")
			}
		})
		tracing.Stop()
	}
}

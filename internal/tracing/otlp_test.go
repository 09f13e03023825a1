package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP receiver that decodes what it is sent with
// opentelemetry-proto's own generated types, as a collector does.
type collector struct {
	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	raw      [][]byte
	headers  []http.Header
	answer   func(n int, w http.ResponseWriter) bool // true: answered
	calls    atomic.Int32
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(c.calls.Add(1))
	if c.answer != nil && c.answer(n, w) {
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "wrong path or type", http.StatusNotFound)
		return
	}
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests = append(c.requests, &req)
	c.raw = append(c.raw, b)
	c.headers = append(c.headers, r.Header.Clone())
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// newCollector starts a collector and an exporter pointed at it, with the
// variables env adds.
func newCollector(t *testing.T, env map[string]string) (*collector, *exporter) {
	t.Helper()
	c := &collector{}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	for k, v := range env {
		vars[k] = v
	}
	exp, err := newExporter(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return c, exp
}

func TestSpansReachACollectorAsOTLP(t *testing.T) {
	c, exp := newCollector(t, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20k1,x-tenant=a"})
	res := resource.NewSchemaless(attribute.String("service.name", "records"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithResource(res))
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		SpanID:  trace.SpanID{9, 9, 9, 9, 9, 9, 9, 9}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	ctx, server := tp.Tracer("records").Start(ctx, "GET /v1/returns/:id", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.Int("n", 7)}}))
	server.SetAttributes(
		attribute.String("s", "é"), attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Int64("i", -3), attribute.Int64("zero", 0), attribute.Float64("x", 1.5),
		attribute.StringSlice("ss", []string{"a", ""}), attribute.Int64Slice("is", []int64{1, -1}),
		attribute.BoolSlice("bs", []bool{false}), attribute.Float64Slice("fs", []float64{0.25}),
		attribute.ByteSlice("by", []byte{0, 1}), attribute.Map("m", attribute.String("k", "v")),
		attribute.Slice("mixed", attribute.IntValue(1), attribute.StringValue("two")),
	)
	server.AddEvent("picked", trace.WithAttributes(attribute.String("why", "test")))
	_, db := tp.Tracer("records").Start(ctx, "SELECT", trace.WithSpanKind(trace.SpanKindClient))
	db.SetStatus(codes.Error, "no such table")
	db.End()
	server.SetStatus(codes.Ok, "")
	server.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	if len(c.requests) != 2 {
		t.Fatalf("collector got %d requests, want 2 (one per span, synchronously)", len(c.requests))
	}
	if h := c.headers[0]; h.Get("Authorization") != "Bearer k1" || h.Get("X-Tenant") != "a" {
		t.Fatalf("headers %v", h)
	}
	dbSpan, srvSpan := only(t, c.requests[0], res), only(t, c.requests[1], res)

	tid := remote.TraceID()
	if srvSpan.Name != "GET /v1/returns/:id" || srvSpan.Kind != tracepb.Span_SPAN_KIND_SERVER ||
		!bytes.Equal(srvSpan.ParentSpanId, []byte{9, 9, 9, 9, 9, 9, 9, 9}) ||
		!bytes.Equal(srvSpan.TraceId, tid[:]) {
		t.Fatalf("server span %v", srvSpan)
	}
	if srvSpan.Flags != 0x301 || srvSpan.Status.GetCode() != tracepb.Status_STATUS_CODE_OK {
		t.Fatalf("server span flags %#x status %v", srvSpan.Flags, srvSpan.Status)
	}
	if srvSpan.StartTimeUnixNano == 0 || srvSpan.EndTimeUnixNano < srvSpan.StartTimeUnixNano {
		t.Fatalf("times %d..%d", srvSpan.StartTimeUnixNano, srvSpan.EndTimeUnixNano)
	}
	want := map[string]string{
		"s": `string_value:"é"`, "t": `bool_value:true`, "f": `bool_value:false`, "i": `int_value:-3`,
		"zero": `int_value:0`, "x": `double_value:1.5`,
		"ss": `array_value:{values:{string_value:"a"} values:{string_value:""}}`,
		"is": `array_value:{values:{int_value:1} values:{int_value:-1}}`,
		"bs": `array_value:{values:{bool_value:false}}`, "fs": `array_value:{values:{double_value:0.25}}`,
		"by": `bytes_value:"\x00\x01"`, "m": `kvlist_value:{values:{key:"k" value:{string_value:"v"}}}`,
		"mixed": `array_value:{values:{int_value:1} values:{string_value:"two"}}`,
	}
	got := attrs(srvSpan.Attributes)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("attribute %s = %s, want %s", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("attributes %v", got)
	}
	if len(srvSpan.Events) != 1 || srvSpan.Events[0].Name != "picked" || attrs(srvSpan.Events[0].Attributes)["why"] != `string_value:"test"` {
		t.Errorf("events %v", srvSpan.Events)
	}
	if l := srvSpan.Links; len(l) != 1 || !bytes.Equal(l[0].SpanId, []byte{9, 9, 9, 9, 9, 9, 9, 9}) || l[0].Flags != 0x301 || attrs(l[0].Attributes)["n"] != "int_value:7" {
		t.Errorf("links %v", l)
	}

	if dbSpan.Kind != tracepb.Span_SPAN_KIND_CLIENT || !bytes.Equal(dbSpan.ParentSpanId, srvSpan.SpanId) || dbSpan.Flags != 0x101 ||
		dbSpan.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || dbSpan.Status.GetMessage() != "no such table" {
		t.Fatalf("database span %v", dbSpan)
	}
	// What proto itself writes for the message decoded is what was sent:
	// the same fields, in the same order, with nothing left over.
	for i, req := range c.requests {
		again, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
		if err != nil || !bytes.Equal(again, c.raw[i]) {
			t.Fatalf("request %d is not canonical protobuf:\n sent %x\n  got %x", i, c.raw[i], again)
		}
	}
}

// only is a request's one span, checking its resource and scope.
func only(t *testing.T, req *coltracepb.ExportTraceServiceRequest, res *resource.Resource) *tracepb.Span {
	t.Helper()
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans[0].Spans) != 1 {
		t.Fatalf("request %v: want one resource, scope and span", req)
	}
	rs := req.ResourceSpans[0]
	if attrs(rs.Resource.GetAttributes())["service.name"] != `string_value:"records"` || len(rs.Resource.GetAttributes()) != res.Len() {
		t.Fatalf("resource %v", rs.Resource)
	}
	if rs.ScopeSpans[0].Scope.GetName() != "records" {
		t.Fatalf("scope %v", rs.ScopeSpans[0].Scope)
	}
	return rs.ScopeSpans[0].Spans[0]
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = strings.ReplaceAll(kv.Value.String(), "  ", " ")
	}
	return m
}

func TestABatchGroupsItsSpansByResourceAndScope(t *testing.T) {
	c, exp := newCollector(t, map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"})
	a := sdktrace.NewTracerProvider(sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "a"))))
	b := sdktrace.NewTracerProvider(sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "b"))))
	var spans []sdktrace.ReadOnlySpan
	rec := func(tp *sdktrace.TracerProvider, scope, name string) {
		_, s := tp.Tracer(scope).Start(context.Background(), name)
		s.End()
		spans = append(spans, s.(sdktrace.ReadOnlySpan))
	}
	rec(a, "one", "a1")
	rec(b, "one", "b1")
	rec(a, "two", "a2")
	rec(a, "one", "a3")
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	if len(c.requests) != 1 || c.headers[0].Get("Content-Encoding") != "gzip" {
		t.Fatalf("requests %d, headers %v", len(c.requests), c.headers)
	}
	var got []string
	for _, rs := range c.requests[0].ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			var names []string
			for _, s := range ss.Spans {
				names = append(names, s.Name)
			}
			got = append(got, attrs(rs.Resource.Attributes)["service.name"]+"/"+ss.Scope.Name+": "+strings.Join(names, " "))
		}
	}
	want := `string_value:"a"/one: a1 a3|string_value:"a"/two: a2|string_value:"b"/one: b1`
	if strings.Join(got, "|") != want {
		t.Fatalf("got %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// batch is one span, ended, to export.
func batch() []sdktrace.ReadOnlySpan {
	_, s := sdktrace.NewTracerProvider().Tracer("records").Start(context.Background(), "x")
	s.End()
	return []sdktrace.ReadOnlySpan{s.(sdktrace.ReadOnlySpan)}
}

func TestABatchIsSentAgainWhileTheCollectorIsBusy(t *testing.T) {
	c, exp := newCollector(t, nil)
	c.answer = func(n int, w http.ResponseWriter) bool {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "", http.StatusTooManyRequests)
		default:
			return false
		}
		return true
	}
	if err := exp.ExportSpans(context.Background(), batch()); err != nil {
		t.Fatal(err)
	}
	if c.calls.Load() != 3 || len(c.requests) != 1 {
		t.Fatalf("calls %d, accepted %d; want 3 and 1", c.calls.Load(), len(c.requests))
	}
}

func TestARefusedBatchIsNotSentAgain(t *testing.T) {
	c, exp := newCollector(t, nil)
	c.answer = func(_ int, w http.ResponseWriter) bool {
		http.Error(w, "\x0abad\x00 span", http.StatusBadRequest)
		return true
	}
	err := exp.ExportSpans(context.Background(), batch())
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request: bad span") {
		t.Fatalf("err %v", err)
	}
	if c.calls.Load() != 1 {
		t.Fatalf("calls %d, want 1", c.calls.Load())
	}
}

// waiting starts the export of a batch that the collector answers 503,
// to be sent again in 30 s, and returns once the first attempt is in:
// the export is then waiting to retry.
func waiting(t *testing.T) (*collector, *exporter, <-chan error) {
	t.Helper()
	c, exp := newCollector(t, nil)
	c.answer = func(_ int, w http.ResponseWriter) bool {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}
	done := export(context.Background(), exp)
	for c.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	return c, exp, done
}

func TestShutdownEndsAWaitForTheCollector(t *testing.T) {
	_, exp, done := waiting(t)
	_ = exp.Shutdown(context.Background())
	if err := ended(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want one wrapping context.Canceled", err)
	}
}

// export exports a batch in the background; the channel gets its error.
func export(ctx context.Context, exp *exporter) <-chan error {
	done := make(chan error, 1)
	go func() { done <- exp.ExportSpans(ctx, batch()) }()
	return done
}

// ended is the error of an export that must have ended: one still going
// after 30 s is waiting on something it should not (the tests' deadlines
// are a second at most).
func ended(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the export went on waiting past its end")
		return nil
	}
}

func TestACollectorThatHangsCostsABatchItsTimeoutNotTheExportersLife(t *testing.T) {
	release := make(chan struct{})
	c, exp := newCollector(t, map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "100"})
	defer close(release)
	c.answer = func(int, http.ResponseWriter) bool {
		<-release
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := ended(t, export(ctx, exp)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want one wrapping the batch's deadline", err)
	}
	if n := c.calls.Load(); n < 2 {
		t.Fatalf("%d attempts; a request that timed out is tried again within the batch's time", n)
	}
}

// spanTo sets tracing up as serve does, exporting to endpoint with its
// log in logs, and makes one span; stop flushes it.
func spanTo(t *testing.T, endpoint string) (stop func(context.Context) error, logs *bytes.Buffer) {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	logs = &bytes.Buffer{}
	stop, err := Setup(slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(Stop)
	_, span := Tracer().Start(context.Background(), "GET /v1/returns")
	span.End()
	return stop, logs
}

func TestAFailedBatchIsAWarningInTheServicesLog(t *testing.T) {
	c := &collector{answer: func(_ int, w http.ResponseWriter) bool {
		http.Error(w, "span too large", http.StatusBadRequest)
		return true
	}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	stop, logs := spanTo(t, srv.URL)
	_ = stop(context.Background()) // flushes: the batch goes out, and is refused
	line := logs.String()
	if !strings.Contains(line, `"level":"WARN","msg":"tracing: exporting spans"`) || !strings.Contains(line, "400 Bad Request: span too large") {
		t.Fatalf("log: %s", line)
	}
}

func TestADrainingExporterTriesAWaitingBatchOnceMoreAtOnce(t *testing.T) {
	c, exp, done := waiting(t)
	exp.Drain() // a 30 s wait ends in one more attempt
	err := ended(t, done)
	if err == nil || !strings.Contains(err.Error(), "not sent again, the service is stopping") || errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if n := c.calls.Load(); n != 2 {
		t.Fatalf("%d attempts, want 2: the one waited on, then one as the drain began", n)
	}

	// A batch sent once the exporter drains gets one attempt; one the
	// collector takes is taken as ever.
	c.calls.Store(0)
	if err := ended(t, export(context.Background(), exp)); err == nil || c.calls.Load() != 1 {
		t.Fatalf("err %v after %d attempts, want an error after 1", err, c.calls.Load())
	}
	c.answer = nil
	if err := ended(t, export(context.Background(), exp)); err != nil || len(c.requests) != 1 {
		t.Fatalf("err %v, %d batches taken", err, len(c.requests))
	}
}

func TestStoppingWithTheCollectorDownDoesNotWaitToRetry(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // its address now refuses connections
	stop, logs := spanTo(t, srv.URL)
	// Without the drain, the flush would retry until this deadline ended.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- stop(ctx) }()
	if err := ended(t, done); errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stop: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("stopping waited out its deadline")
	}
	if line := logs.String(); !strings.Contains(line, "not sent again, the service is stopping") || !strings.Contains(line, "connection refused") {
		t.Fatalf("log: %s", line)
	}
}

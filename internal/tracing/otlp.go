package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The exporter sends spans over OTLP/HTTP in protobuf, as the
// OpenTelemetry SDK's otlptracehttp does, in some 800 lines of the
// service's own: that exporter links gRPC and its generated types, 2.5 to
// 5 MiB resident in every process whether tracing is on or not
// (docs/performance.md).
type exporter struct {
	cfg    config
	client *http.Client
	stop   context.Context
	cancel context.CancelFunc
	// drain is closed when the service starts to stop (Drain): a batch
	// that fails from then on is tried once more, at once, not waited for.
	drain     chan struct{}
	drainOnce sync.Once
	bodies    sync.Pool // *[]byte: requests as encoded
	zipped    sync.Pool // *zipper: requests as compressed
}

// zipper compresses a request into its own buffer.
type zipper struct {
	buf bytes.Buffer
	w   *gzip.Writer
}

// Retries of a batch the collector could not take at once: 429, 502, 503,
// 504 or a failed connection, waiting as its Retry-After says or twice as
// long each time, until a minute has gone by or the batch's context ends.
const (
	firstRetry  = 500 * time.Millisecond
	lastRetry   = 5 * time.Second
	retryWithin = time.Minute
)

// newExporter makes the exporter the variables describe.
func newExporter(getenv func(string) string) (*exporter, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.tls != nil {
		tr.TLSClientConfig = cfg.tls
	}
	stop, cancel := context.WithCancel(context.Background())
	return &exporter{cfg: cfg, client: &http.Client{Transport: tr, Timeout: cfg.timeout}, stop: stop, cancel: cancel,
		drain: make(chan struct{})}, nil
}

// Drain ends the exporter's waits: from now on a batch the collector does
// not take is tried once more at once, then dropped with its error. The
// service calls it before its last flush, so that a collector that is down
// costs the flush one attempt a batch, not the flush's whole deadline spent
// waiting to retry.
func (e *exporter) Drain() { e.drainOnce.Do(func() { close(e.drain) }) }

// ExportSpans sends one batch.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	p, _ := e.bodies.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	defer e.bodies.Put(p)
	*p = appendRequest((*p)[:0], spans)
	body := *p
	if e.cfg.gzip {
		z, _ := e.zipped.Get().(*zipper)
		if z == nil {
			z = &zipper{}
			z.w = gzip.NewWriter(&z.buf)
		}
		defer e.zipped.Put(z)
		z.buf.Reset()
		z.w.Reset(&z.buf)
		if _, err := z.w.Write(body); err != nil {
			return err
		}
		if err := z.w.Close(); err != nil {
			return err
		}
		body = z.buf.Bytes()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.stop, cancel)()
	return e.send(ctx, body)
}

// send posts body, again while the failure is one worth retrying; once
// the exporter drains, one attempt after the drain began is the last.
func (e *exporter) send(ctx context.Context, body []byte) error {
	start, wait := time.Now(), firstRetry
	drained := false // an attempt was made since the drain began
	for {
		select {
		case <-e.drain:
			drained = true
		default:
		}
		after, err := e.post(ctx, body)
		if err == nil || after < 0 {
			return err
		}
		if drained {
			return fmt.Errorf("not sent again, the service is stopping: %w", err)
		}
		delay := max(after, wait/2+rand.N(wait/2+1))
		if time.Since(start)+delay > retryWithin {
			return fmt.Errorf("gave up after %s: %w", time.Since(start).Round(time.Millisecond), err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		case <-e.drain:
			t.Stop() // the last attempt, now
		case <-t.C:
		}
		wait = min(2*wait, lastRetry)
	}
}

// post makes one attempt. A failure worth retrying comes with how long
// the collector asked to be left (0 when it did not say); any other with
// -1.
func (e *exporter) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "records OTLP exporter")
	if e.cfg.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range e.cfg.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() == nil && transient(err) {
			return 0, err
		}
		return -1, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 == 2 {
		if resp.Header.Get("Content-Type") != "application/x-protobuf" {
			return 0, nil
		}
		if n, why := partialSuccess(msg); n > 0 || why != "" {
			// Taken, in part: sending it again would not change that.
			return -1, fmt.Errorf("%s took the batch but rejected %d spans: %s", e.cfg.shown, n, why)
		}
		return 0, nil
	}
	err = fmt.Errorf("%s answered %s: %s", e.cfg.shown, resp.Status, summary(msg))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), err
	}
	return -1, err
}

// transient tells whether a failed request may go through if tried again:
// a connection refused, reset or timed out, or an answer cut short; not a
// certificate refused or a URL the transport cannot use.
func transient(err error) bool {
	var op *net.OpError
	var ue *url.Error
	return errors.As(err, &op) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		(errors.As(err, &ue) && ue.Timeout())
}

// retryAfter is a Retry-After header's wait, in seconds or as a date.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(min(s, 3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// summary is a collector's answer as text for an error: its printable
// characters (a protobuf Status holds its message as text).
func summary(b []byte) string {
	if s := printable(b); s != "" {
		return s
	}
	return "(no body)"
}

// printable is b's printable characters, trimmed.
func printable(b []byte) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == '\uFFFD' {
			return -1
		}
		return r
	}, string(b)))
}

// Shutdown stops retries in flight; the provider has already flushed.
func (e *exporter) Shutdown(context.Context) error {
	e.cancel()
	e.client.CloseIdleConnections()
	return nil
}

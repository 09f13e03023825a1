package tracing

import (
	"context"
	"net/http"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func TestASpanTheCollectorRejectedIsReported(t *testing.T) {
	c, exp := newCollector(t, nil)
	answer, err := proto.Marshal(&coltracepb.ExportTraceServiceResponse{
		PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "too old"}})
	if err != nil {
		t.Fatal(err)
	}
	c.answer = func(n int, w http.ResponseWriter) bool {
		switch n {
		case 1: // partial success
			w.Header().Set("Content-Type", "application/x-protobuf")
			_, _ = w.Write(answer)
		case 2: // full success, said in protobuf: an empty response
			w.Header().Set("Content-Type", "application/x-protobuf")
		default: // not protobuf: read as success, whatever it holds
			_, _ = w.Write([]byte("\n\x02\x08\x05"))
		}
		return true
	}
	err = exp.ExportSpans(context.Background(), batch())
	if err == nil || !strings.Contains(err.Error(), "rejected 2 spans: too old") || c.calls.Load() != 1 {
		t.Fatalf("err %v after %d calls; want the rejection reported, the batch not sent again", err, c.calls.Load())
	}
	for range 2 {
		if err := exp.ExportSpans(context.Background(), batch()); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzPartialSuccess reads a collector's answer as protobuf's own decoder
// does: the same rejected count and reason for any answer it accepts, and
// no panic on any other.
func FuzzPartialSuccess(f *testing.F) {
	for _, b := range [][]byte{nil, {0x0a}, {0x0a, 0xff}, {0x0a, 0x02, 0x08}, {0x0a, 0x03, 0x08, 0x80}, {0x0d, 1, 2}, {0x09, 1},
		{0x0a, 0x04, 0x12, 0x02, 'h', 'i'}, {0x0a, 0x02, 0x08, 0x05}, {0x2b, 0x08, 0x01, 0x2c, 0x0a, 0x02, 0x08, 0x03}, {0x2b, 0x0a, 0x02, 0x08, 0x07, 0x2c}, {0x0a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, why := partialSuccess(b)
		var want coltracepb.ExportTraceServiceResponse
		if proto.Unmarshal(b, &want) != nil {
			return
		}
		ps := want.GetPartialSuccess()
		if n != ps.GetRejectedSpans() || why != printable([]byte(ps.GetErrorMessage())) {
			t.Fatalf("%x: got %d %q, want %d %q", b, n, why, ps.GetRejectedSpans(), ps.GetErrorMessage())
		}
	})
}

func TestPartialSuccessSkipsWhatItDoesNotKnow(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		n    int64
		why  string
		what string
	}{
		{[]byte{0x0a, 0x04, 0x12, 0x02, 'h', 'i'}, 0, "hi", "a reason alone"},
		{[]byte{0x0a, 0x02, 0x10, 0x05}, 0, "", "a reason of the wrong wire type"},
		{[]byte{0x2b, 0x08, 0x01, 0x2c, 0x0a, 0x02, 0x08, 0x03}, 3, "", "a group skipped whole, then the count"},
		{[]byte{0x2b, 0x0a, 0x02, 0x08, 0x07, 0x2c}, 0, "", "a field 1 inside a group"},
		{[]byte("OK"), 0, "", "text"},
	} {
		if n, why := partialSuccess(c.b); n != c.n || why != c.why {
			t.Errorf("%s (%x): got %d %q, want %d %q", c.what, c.b, n, why, c.n, c.why)
		}
	}
}

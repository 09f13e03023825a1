package logging

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// The access log's record, as edge.AccessLog makes it: the choice between
// this package's handler and the standard library's JSON handler is made
// on these two benchmarks and on bench/load.sh (README, "Hand-written code
// kept").
func accessRecord() slog.Record {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("request_id", "0192f4c2-7d1e-7b39-9a51-2f1d3c4b5a69"),
		slog.String("route", "GET /v1/returns/:id"),
		slog.Int("status", 200),
		slog.Float64("latency_ms", 0.412),
		slog.Int("team", 7),
	)
	return r
}

func benchmarkHandler(b *testing.B, h slog.Handler) {
	h = h.WithAttrs([]slog.Attr{slog.String("service", "records")})
	r := accessRecord()
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = h.Handle(ctx, r)
		}
	})
}

func BenchmarkAccessLineHandler(b *testing.B) { benchmarkHandler(b, NewHandler(io.Discard)) }

func BenchmarkAccessLineSlogJSON(b *testing.B) {
	benchmarkHandler(b, slog.NewJSONHandler(io.Discard, nil))
}

package server_test

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/natstest"
)

// cpuTime is the CPU the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPublisher is what publishing costs the service's process, in
// CPU per event, beside what a create costs it. Customers are created one
// request at a time (in process, as every request is served), then a
// server with the publisher is started on their events and timed until
// JetStream holds them all; twice, with few events and with many. The
// difference of the two, over the difference of their events, is the cost
// of an event: what starting the server and the publisher's session costs
// (their background work's first rounds, reading the stream back) falls
// out, as does the time-bound part of the test's reads of /metrics. The
// broker's and the database's own work is theirs, in processes of their
// own; a create's CPU here includes the test's side of the request.
func BenchmarkPublisher(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			broker := natstest.Start(b)
			h := newHarness(b, d, testConfig())
			h.unchecked = true
			stream := streamName()
			for range b.N {
				const few, many = 1000, 6000
				create, fewCPU := publishRound(b, h, broker.URL(), stream, few)
				_, manyCPU := publishRound(b, h, broker.URL(), stream, many)
				publish := (manyCPU - fewCPU) / (many - few)
				b.ReportMetric(float64(create.Nanoseconds())/1e3, "create-cpu-µs")
				b.ReportMetric(float64(publish.Nanoseconds())/1e3, "publish-cpu-µs/event")
			}
		})
	}
}

// publishRound creates n customers, then publishes their events to stream
// with a server of its own: the CPU a create took, and the CPU from that
// server's start until JetStream acknowledged all n.
func publishRound(b *testing.B, h *harness, url, stream string, n int) (create, publish time.Duration) {
	body := `{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}`
	start := cpuTime()
	for range n {
		h.call("POST", "/v1/customers", body).want(201)
	}
	create = (cpuTime() - start) / time.Duration(n)
	cfg := testConfig()
	cfg.NATS.URL, cfg.NATS.Stream = url, stream
	srv := secondServerWith(b, h, cfg)
	// What the creates left behind is theirs: their garbage collected,
	// SQLite's checkpoint of their writes run (within checkpointEvery of
	// the last), before the publisher's CPU is counted.
	runtime.GC()
	time.Sleep(time.Second)
	start = cpuTime()
	srv.Start()
	for !strings.Contains(metricsOf(b, srv), fmt.Sprintf("\nrecords_nats_published_total %d\n", n)) {
		time.Sleep(200 * time.Millisecond)
	}
	publish = cpuTime() - start
	srv.Close()
	return create, publish
}

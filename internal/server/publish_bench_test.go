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
// CPU per event, beside what a create costs it: 5,000 customers created
// one request at a time (in process, as every request is served), then a
// publisher started on their 5,000 events, timed until JetStream holds
// them all. The broker's and the database's own work is theirs, in
// processes of their own; a create's CPU here includes the test's side of
// the request (the harness sends it in process and reads the answer), and
// the publisher's includes starting the second server (its background
// work's first rounds) and the test's reads of /metrics.
func BenchmarkPublisher(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) {
			broker := natstest.Start(b)
			h := newHarness(b, d, testConfig())
			h.unchecked = true
			body := `{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}`
			const n = 5000
			stream := streamName()
			for range b.N {
				start := cpuTime()
				for range n {
					h.call("POST", "/v1/customers", body).want(201)
				}
				create := (cpuTime() - start) / n
				cfg := testConfig()
				cfg.NATS.URL, cfg.NATS.Stream = broker.URL(), stream
				srv := secondServerWith(b, h, cfg)
				// What the creates left behind is theirs: their garbage
				// collected, SQLite's checkpoint of their writes run
				// (within checkpointEvery of the last), before the
				// publisher's CPU is counted.
				runtime.GC()
				time.Sleep(time.Second)
				start = cpuTime()
				srv.Start()
				for !strings.Contains(metricsOf(b, srv), fmt.Sprintf("\nrecords_nats_published_total %d\n", n)) {
					time.Sleep(200 * time.Millisecond)
				}
				publish := (cpuTime() - start) / n
				srv.Close()
				b.ReportMetric(float64(create.Nanoseconds())/1e3, "create-cpu-µs")
				b.ReportMetric(float64(publish.Nanoseconds())/1e3, "publish-cpu-µs/event")
			}
		})
	}
}

// Command webhookload measures webhook delivery against a running server:
// it serves a receiver, registers it as a webhook, creates records at a
// fixed rate, and reports the time from each event's commit (its
// occurred_at) to its arrival: p50, p99, max. With --down it then answers
// every delivery 503 for that long while the writes go on, sampling the
// server's resident memory (from its /metrics) to show it stays flat, and
// finally lets the backlog drain. For bench/webhooks.sh.
//
//	webhookload --server http://127.0.0.1:18084 --token rk_… --rate 500 --duration 60s --down 10m
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	server := flag.String("server", "http://127.0.0.1:18084", "the records server")
	token := flag.String("token", "", "a write token")
	rate := flag.Int("rate", 500, "creates per second")
	duration := flag.Duration("duration", 60*time.Second, "how long to measure latency")
	down := flag.Duration("down", 0, "then answer 503 for this long, sampling memory")
	flag.Parse()
	http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost = 128

	rcv := &receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, rcv)
	l := &load{server: *server, token: *token, rate: *rate}
	if s, b := l.call("POST", "/v1/webhooks", `{"url":"http://`+ln.Addr().String()+`/","events":["customers.created"]}`); s != 201 {
		log.Fatalf("registering the receiver: %d %s", s, b)
	}
	l.latency(rcv, *duration)
	if *down > 0 {
		l.outage(rcv, *down)
	}
}

// receiver is the webhook's endpoint: it notes each event's time from
// commit to arrival, or answers 503 while failing.
type receiver struct {
	mu      sync.Mutex
	lat     []time.Duration
	failing atomic.Bool
	got     atomic.Int64
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if rc.failing.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var e struct {
		OccurredAt time.Time `json:"occurred_at"`
	}
	if json.Unmarshal(body, &e) == nil {
		rc.mu.Lock()
		rc.lat = append(rc.lat, time.Since(e.OccurredAt))
		rc.mu.Unlock()
	}
	rc.got.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

// load is the writer of records to the server.
type load struct {
	server, token string
	rate          int
}

// call sends one request with the token; 0 when it could not be sent.
func (l *load) call(method, path, body string) (int, []byte) {
	req, _ := http.NewRequest(method, l.server+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// write creates at rate until stop closes; returns how many succeeded.
func (l *load) write(stop <-chan struct{}) *atomic.Int64 {
	var ok atomic.Int64
	tick := time.NewTicker(time.Second / time.Duration(l.rate))
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				go func() {
					if s, _ := l.call("POST", "/v1/customers", `{"email":"load@example.com"}`); s == 201 {
						ok.Add(1)
					}
				}()
			}
		}
	}()
	return &ok
}

// latency writes for duration and reports the time from each event's
// commit to its delivery.
func (l *load) latency(rcv *receiver, duration time.Duration) {
	stop := make(chan struct{})
	sent := l.write(stop)
	time.Sleep(duration)
	close(stop)
	time.Sleep(2 * time.Second)
	rcv.mu.Lock()
	lat := slices.Clone(rcv.lat)
	rcv.mu.Unlock()
	slices.Sort(lat)
	if len(lat) == 0 {
		log.Fatal("no delivery arrived")
	}
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("rate %d/s for %v: %d creates, %d delivered; commit to delivery p50 %v p99 %v max %v\n",
		l.rate, duration, sent.Load(), len(lat), q(0.50).Round(time.Millisecond), q(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
}

// outage answers every delivery 503 for down while the writes go on, and
// reports the server's resident memory sampled every 10 s.
func (l *load) outage(rcv *receiver, down time.Duration) {
	rcv.failing.Store(true)
	stop := make(chan struct{})
	sent := l.write(stop)
	start := time.Now()
	var rss []float64
	for time.Since(start) < down {
		time.Sleep(10 * time.Second)
		rss = append(rss, residentMiB(l.server))
	}
	close(stop)
	fmt.Printf("receiver down %v at %d/s (%d creates): server RSS MiB every 10 s: first %.1f, min %.1f, max %.1f, last %.1f\n",
		down, l.rate, sent.Load(), rss[0], slices.Min(rss), slices.Max(rss), rss[len(rss)-1])
	rcv.failing.Store(false)
}

// residentMiB reads process_resident_memory_bytes from the server's /metrics.
func residentMiB(server string) float64 {
	resp, err := http.Get(server + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) == 2 && string(f[0]) == "process_resident_memory_bytes" {
			var v float64
			fmt.Sscan(string(f[1]), &v)
			return v / (1 << 20)
		}
	}
	return 0
}

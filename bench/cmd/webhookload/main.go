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

	var (
		mu      sync.Mutex
		lat     []time.Duration
		failing atomic.Bool
		got     atomic.Int64
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var e struct {
			OccurredAt time.Time `json:"occurred_at"`
		}
		if json.Unmarshal(body, &e) == nil {
			mu.Lock()
			lat = append(lat, time.Since(e.OccurredAt))
			mu.Unlock()
		}
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	call := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, *server+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+*token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if s, b := call("POST", "/v1/webhooks", `{"url":"http://`+ln.Addr().String()+`/","events":["customers.created"]}`); s != 201 {
		log.Fatalf("registering the receiver: %d %s", s, b)
	}
	// write creates at rate until stop closes; returns how many succeeded.
	write := func(stop <-chan struct{}) *atomic.Int64 {
		var ok atomic.Int64
		tick := time.NewTicker(time.Second / time.Duration(*rate))
		go func() {
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					go func() {
						if s, _ := call("POST", "/v1/customers", `{"email":"load@example.com"}`); s == 201 {
							ok.Add(1)
						}
					}()
				}
			}
		}()
		return &ok
	}

	stop := make(chan struct{})
	sent := write(stop)
	time.Sleep(*duration)
	close(stop)
	time.Sleep(2 * time.Second)
	mu.Lock()
	l := slices.Clone(lat)
	mu.Unlock()
	slices.Sort(l)
	if len(l) == 0 {
		log.Fatal("no delivery arrived")
	}
	q := func(p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
	fmt.Printf("rate %d/s for %v: %d creates, %d delivered; commit to delivery p50 %v p99 %v max %v\n",
		*rate, *duration, sent.Load(), len(l), q(0.50).Round(time.Millisecond), q(0.99).Round(time.Millisecond), l[len(l)-1].Round(time.Millisecond))

	if *down <= 0 {
		return
	}
	failing.Store(true)
	stop = make(chan struct{})
	sent = write(stop)
	start := time.Now()
	var rss []float64
	for time.Since(start) < *down {
		time.Sleep(10 * time.Second)
		rss = append(rss, residentMiB(*server))
	}
	close(stop)
	fmt.Printf("receiver down %v at %d/s (%d creates): server RSS MiB every 10 s: first %.1f, min %.1f, max %.1f, last %.1f\n",
		*down, *rate, sent.Load(), rss[0], slices.Min(rss), slices.Max(rss), rss[len(rss)-1])
	failing.Store(false)
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

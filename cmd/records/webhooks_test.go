package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"records/internal/dbtest"
)

// A server killed (SIGKILL) with deliveries pending, and started again,
// still delivers every event: at least once, across crashes.
func TestWebhookDeliveriesSurviveSIGKILL(t *testing.T) {
	bin := buildBinary(t)
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			var up atomic.Bool
			var mu sync.Mutex
			seen := map[string]int{}
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if !up.Load() {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				mu.Lock()
				seen[r.Header.Get("webhook-id")]++
				mu.Unlock()
				w.WriteHeader(http.StatusNoContent)
			}))
			defer rcv.Close()
			url := dbtest.URL(t, d)
			args := []string{"--database-url", url, "--webhook-allow-private", "--webhook-timeout", "1s",
				"--webhook-retry-schedule", strings.Repeat("300ms,", 30) + "300ms"}
			cmd, base, printed := startServeOutput(t, bin, args...)
			token := printed[len(printed)-1]
			call := func(method, path, body string) int {
				req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if s := call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["*"]}`); s != 201 {
				t.Fatalf("webhook: %d", s)
			}
			const n = 20
			for i := range n {
				if s := call("POST", "/v1/customers", fmt.Sprintf(`{"id":"k%d"}`, i)); s != 201 {
					t.Fatalf("create: %d", s)
				}
			}
			time.Sleep(700 * time.Millisecond) // attempts fail, retries pend
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			up.Store(true)
			startServe(t, bin, args...)
			deadline := time.Now().Add(30 * time.Second)
			for {
				mu.Lock()
				got := len(seen)
				mu.Unlock()
				if got == n {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the restart, %d of %d events delivered", got, n)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/dbtest"
)

// sseEvent is one event read from a stream.
type sseEvent struct{ id, data string }

// openStream connects to the event stream of a real server.
func openStream(t *testing.T, url, token string, headers ...string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Hung up before the server closes (cleanups run last first), so that
	// a test failing with the stream open does not leave Close waiting.
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				e.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			case line == "" && e.data != "":
				out <- e
				e = sseEvent{}
			}
		}
	}()
	return out, cancel
}

func nextEvent(t *testing.T, c <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case e, ok := <-c:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return sseEvent{}
}

// The stream answers events committed after connecting; a client that
// reconnects with Last-Event-ID misses nothing and sees nothing twice.
func TestStreamResumes(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.RequestTimeout = 2 * time.Second // a stream outlives it
			h := newHarness(t, d, cfg)
			h.srv.Start()
			t.Cleanup(func() { h.srv.Close() })
			ts := startServer(t, h.srv)
			h.call("POST", "/v1/customers", `{"id":"before"}`).want(201)
			stream, hangUp := openStream(t, ts.URL, h.token)
			for i := 1; i <= 3; i++ {
				h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"s%d"}`, i)).want(201)
			}
			var last string
			for i := 1; i <= 2; i++ {
				e := nextEvent(t, stream)
				if !strings.Contains(e.data, fmt.Sprintf(`"id":"s%d"`, i)) {
					t.Fatalf("event %d: %s", i, e.data)
				}
				last = e.id
			}
			hangUp()
			for i := 4; i <= 5; i++ {
				h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"s%d"}`, i)).want(201)
			}
			time.Sleep(cfg.RequestTimeout + 500*time.Millisecond)
			stream, hangUp = openStream(t, ts.URL, h.token, "Last-Event-ID", last)
			defer hangUp()
			for i := 3; i <= 5; i++ {
				if e := nextEvent(t, stream); !strings.Contains(e.data, fmt.Sprintf(`"id":"s%d"`, i)) {
					t.Fatalf("after resuming, event %d: %s", i, e.data)
				}
			}
			// The stream lives past the request timeout.
			time.Sleep(cfg.RequestTimeout + 500*time.Millisecond)
			h.call("POST", "/v1/customers", `{"id":"s6"}`).want(201)
			if e := nextEvent(t, stream); !strings.Contains(e.data, `"id":"s6"`) {
				t.Fatalf("after the request timeout: %s", e.data)
			}
			// The stream's id is a cursor of the log.
			if r := h.call("GET", "/v1/events?cursor="+last, "").want(200); len(r.list("events")) != 4 {
				t.Fatalf("the log after the stream's id: %s", r.Body)
			}
		})
	}
}

// A stream ends once its token is revoked or has expired, as any request
// of that token is then refused: it delivers nothing written after.
func TestStreamEndsWithItsToken(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, d, testConfig())
			h.srv.Start()
			t.Cleanup(func() { h.srv.Close() })
			ts := startServer(t, h.srv)
			store := auth.NewStore(h.db, 0)
			tok, secret, err := store.Create(context.Background(), "watcher", auth.Read, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			_, expiring, err := store.Create(context.Background(), "brief", auth.Read, "", 1500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			revoked, hangUp := openStream(t, ts.URL, secret)
			defer hangUp()
			expired, hangUp2 := openStream(t, ts.URL, expiring)
			defer hangUp2()
			h.call("POST", "/v1/customers", `{"id":"seen"}`).want(201)
			for _, stream := range []<-chan sseEvent{revoked, expired} {
				if e := nextEvent(t, stream); !strings.Contains(e.data, `"id":"seen"`) {
					t.Fatalf("first event: %s", e.data)
				}
			}
			if err := store.Revoke(context.Background(), tok.ID); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second) // the revocation and the expiry both past
			h.call("POST", "/v1/customers", `{"id":"unseen"}`).want(201)
			for name, stream := range map[string]<-chan sseEvent{"revoked": revoked, "expired": expired} {
				select {
				case e, open := <-stream:
					if open {
						t.Fatalf("the %s token's stream went on: %s", name, e.data)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("the %s token's stream did not end", name)
				}
			}
		})
	}
}

package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/servertest"
)

// The stream answers events committed after connecting; a client that
// reconnects with Last-Event-ID misses nothing and sees nothing twice.
func TestStreamResumes(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			cfg := servertest.Config()
			cfg.RequestTimeout = 2 * time.Second // a stream outlives it
			h := servertest.New(t, d, cfg)
			h.Srv.Start()
			t.Cleanup(func() { h.Srv.Close() })
			ts := servertest.Serve(t, h.Srv)
			h.Call("POST", "/v1/customers", `{"id":"before"}`).Want(201)
			// A transaction of the database (another test's) may hold the
			// log back a moment: the stream starts after the newest event
			// the log answers, so "before" must be answered first.
			for deadline := time.Now().Add(10 * time.Second); len(h.Call("GET", "/v1/events", "").Want(200).List("events")) == 0; {
				if time.Now().After(deadline) {
					t.Fatal("the create's event never showed")
				}
				time.Sleep(10 * time.Millisecond)
			}
			stream, hangUp := servertest.OpenStream(t, ts.URL, h.Token)
			for i := 1; i <= 3; i++ {
				h.Call("POST", "/v1/customers", fmt.Sprintf(`{"id":"s%d"}`, i)).Want(201)
			}
			var last string
			for i := 1; i <= 2; i++ {
				e := servertest.NextEvent(t, stream)
				if !strings.Contains(e.Data, fmt.Sprintf(`"id":"s%d"`, i)) {
					t.Fatalf("event %d: %s", i, e.Data)
				}
				last = e.ID
			}
			hangUp()
			for i := 4; i <= 5; i++ {
				h.Call("POST", "/v1/customers", fmt.Sprintf(`{"id":"s%d"}`, i)).Want(201)
			}
			time.Sleep(cfg.RequestTimeout + 500*time.Millisecond)
			stream, hangUp = servertest.OpenStream(t, ts.URL, h.Token, "Last-Event-ID", last)
			defer hangUp()
			for i := 3; i <= 5; i++ {
				if e := servertest.NextEvent(t, stream); !strings.Contains(e.Data, fmt.Sprintf(`"id":"s%d"`, i)) {
					t.Fatalf("after resuming, event %d: %s", i, e.Data)
				}
			}
			// The stream lives past the request timeout.
			time.Sleep(cfg.RequestTimeout + 500*time.Millisecond)
			h.Call("POST", "/v1/customers", `{"id":"s6"}`).Want(201)
			if e := servertest.NextEvent(t, stream); !strings.Contains(e.Data, `"id":"s6"`) {
				t.Fatalf("after the request timeout: %s", e.Data)
			}
			// The stream's id is a cursor of the log.
			if r := h.Call("GET", "/v1/events?cursor="+last, "").Want(200); len(r.List("events")) != 4 {
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
			h := servertest.New(t, d, servertest.Config())
			h.Srv.Start()
			t.Cleanup(func() { h.Srv.Close() })
			ts := servertest.Serve(t, h.Srv)
			store := auth.NewStore(h.DB, 0)
			tok, secret, err := store.Create(context.Background(), "watcher", auth.Read, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			_, expiring, err := store.Create(context.Background(), "brief", auth.Read, "", 1500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			revoked, hangUp := servertest.OpenStream(t, ts.URL, secret)
			defer hangUp()
			expired, hangUp2 := servertest.OpenStream(t, ts.URL, expiring)
			defer hangUp2()
			h.Call("POST", "/v1/customers", `{"id":"seen"}`).Want(201)
			for _, stream := range []<-chan servertest.SSEEvent{revoked, expired} {
				if e := servertest.NextEvent(t, stream); !strings.Contains(e.Data, `"id":"seen"`) {
					t.Fatalf("first event: %s", e.Data)
				}
			}
			if err := store.Revoke(context.Background(), tok.ID); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second) // the revocation and the expiry both past
			h.Call("POST", "/v1/customers", `{"id":"unseen"}`).Want(201)
			for name, stream := range map[string]<-chan servertest.SSEEvent{"revoked": revoked, "expired": expired} {
				select {
				case e, open := <-stream:
					if open {
						t.Fatalf("the %s token's stream went on: %s", name, e.Data)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("the %s token's stream did not end", name)
				}
			}
		})
	}
}

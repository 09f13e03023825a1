package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/natstest"
	"records/internal/server"
)

// metricsOf is what the server's /metrics answers.
func metricsOf(tb testing.TB, srv *server.Server) string {
	tb.Helper()
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	return w.Body.String()
}

// publishing is the test configuration, publishing to a stream of the
// test's own on broker.
func publishing(broker *natstest.Server) server.Config {
	cfg := testConfig()
	cfg.NATS.URL, cfg.NATS.Stream = broker.URL(), streamName()
	return cfg
}

// publishingHarness is a harness of dialect d whose server publishes to
// broker, started, and closed when the test ends; and its configuration.
func publishingHarness(t *testing.T, d string, broker *natstest.Server) (*harness, server.Config) {
	cfg := publishing(broker)
	h := newHarness(t, d, cfg)
	h.srv.Start()
	t.Cleanup(func() { h.srv.Close() })
	return h, cfg
}

// streamName is a stream of the test's own.
func streamName() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "T" + strings.ToUpper(hex.EncodeToString(b))
}

// teamLog reads a team's whole event log, page after page: the events'
// ids and each event as the log answers it.
func teamLog(t *testing.T, h *harness, token string) (ids []string, bodies [][]byte) {
	t.Helper()
	return readLog(t, func(path string) (int, []byte) {
		r := h.callAs(token, "GET", path, "")
		return r.Status, r.Body
	})
}

// readLog reads an event log through get, page after page.
func readLog(t *testing.T, get func(path string) (int, []byte)) (ids []string, bodies [][]byte) {
	t.Helper()
	cursor := ""
	for {
		path := "/v1/events?limit=1000"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		status, body := get(path)
		if status != 200 {
			t.Fatalf("reading the event log: %d %s", status, body)
		}
		var page struct {
			Events []json.RawMessage
			Paging struct {
				NextCursor *string `json:"next_cursor"`
			}
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			var ev struct{ ID string }
			json.Unmarshal(e, &ev)
			ids = append(ids, ev.ID)
			bodies = append(bodies, []byte(e))
		}
		if page.Paging.NextCursor == nil {
			return ids, bodies
		}
		cursor = *page.Paging.NextCursor
	}
}

// checkStream checks that the stream holds each team's log exactly: every
// event once, in the log's order, on its subject, under its id, its body
// the log's answer byte for byte.
func checkStream(t *testing.T, msgs []natstest.Message, logs map[int][][]byte, ids map[int][]string) {
	t.Helper()
	byTeam := map[int][]natstest.Message{}
	for _, m := range msgs {
		var team int
		if _, err := fmt.Sscanf(m.Subject, "records.%d.", &team); err != nil {
			t.Fatalf("a message on subject %s", m.Subject)
		}
		byTeam[team] = append(byTeam[team], m)
	}
	for team, bodies := range logs {
		got := byTeam[team]
		if len(got) != len(bodies) {
			t.Errorf("team %d: %d events in the stream, %d in the log", team, len(got), len(bodies))
		}
		for i := range min(len(got), len(bodies)) {
			var ev struct{ Type string }
			json.Unmarshal(bodies[i], &ev)
			if got[i].ID != ids[team][i] || !bytes.Equal(got[i].Data, bodies[i]) ||
				got[i].Subject != fmt.Sprintf("records.%d.%s", team, ev.Type) {
				t.Fatalf("team %d, event %d: the stream holds %s %s %s, the log %s", team, i, got[i].Subject, got[i].ID, got[i].Data, bodies[i])
			}
		}
	}
}

// Every event of the log — of two teams, from creates, changes, deletes and
// a bulk create — is published to JetStream once, in each team's log
// order, on records.<team>.<plural>.<action>, with the log's answer as
// body and the event's id as Nats-Msg-Id; the stream is made when
// missing. With two instances on one PostgreSQL, one publishes.
func TestEventsArePublishedToNATS(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			broker := natstest.Start(t)
			h, cfg := publishingHarness(t, d, broker)
			var second *server.Server
			if d == "postgres" {
				second = secondServerWith(t, h, cfg)
				second.Start()
				defer second.Close()
			}
			other := h.newToken("other", auth.Write, "other")
			tokens := map[string]string{"default": h.token, "other": other}
			for name, token := range tokens {
				for i := range 20 {
					id := fmt.Sprintf("%s-%d", name, i)
					h.callAs(token, "POST", "/v1/customers", `{"id":"`+id+`"}`).want(201)
					if i%3 == 0 {
						h.callAs(token, "PATCH", "/v1/customers/"+id, `{"email":"x@example.com"}`).want(200)
					}
					if i%5 == 0 {
						h.callAs(token, "DELETE", "/v1/customers/"+id, "").want(200)
					}
				}
				h.callAs(token, "POST", "/v1/customers", fmt.Sprintf(`[{"id":"%s-b1"},{"id":"%s-b2"},{"id":"%s-b3"}]`, name, name, name)).want(201)
			}
			// The log and the stream are read until they hold as many events:
			// on a shared PostgreSQL server, another's transaction may hold
			// the log back a while.
			var logs map[int][][]byte
			var ids map[int][]string
			var msgs []natstest.Message
			waitFor(t, 30*time.Second, "every event in the stream", func() bool {
				logs, ids = map[int][][]byte{}, map[int][]string{}
				total := 0
				for _, token := range tokens {
					tid, bodies := teamLog(t, h, token)
					if len(bodies) == 0 {
						return false // held back yet
					}
					var ev struct {
						Team int `json:"team_id"`
					}
					json.Unmarshal(bodies[0], &ev)
					logs[ev.Team], ids[ev.Team] = bodies, tid
					total += len(bodies)
				}
				msgs = natstest.Messages(t, broker.URL(), cfg.NATS.Stream)
				return len(msgs) == total && total == 2*(20+7+4+3)
			})
			time.Sleep(300 * time.Millisecond) // a second publisher would add duplicates meanwhile
			msgs = natstest.Messages(t, broker.URL(), cfg.NATS.Stream)
			checkStream(t, msgs, logs, ids)
			if second != nil {
				active := 0
				for _, srv := range []*server.Server{h.srv, second} {
					if strings.Contains(metricsOf(t, srv), "\nrecords_nats_publisher_active 1\n") {
						active++
					}
				}
				if active != 1 {
					t.Errorf("%d instances publishing, want 1", active)
				}
			}
		})
	}
}

// A publisher that stopped between JetStream's acknowledgements and
// storing its position (here: its position set back to the log's start)
// starts after the stream's last event, not over: though the stream drops
// duplicates within 100 ms only, no event is published twice.
func TestPublishingStartsAfterTheStreamsLastEvent(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			broker := natstest.Start(t)
			cfg := publishing(broker)
			natstest.CreateStream(t, broker.URL(), cfg.NATS.Stream, 100*time.Millisecond)
			h := newHarness(t, d, cfg)
			h.srv.Start()
			for i := range 10 {
				h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"c%d"}`, i)).want(201)
			}
			waitFor(t, 30*time.Second, "the events in the stream", func() bool {
				return len(natstest.Messages(t, broker.URL(), cfg.NATS.Stream)) == 10
			})
			h.srv.Close()
			if _, err := h.db.Exec(context.Background(), `UPDATE "event_followers" SET "txid" = 0, "seq" = 0 WHERE "id" = ?`, "nats:"+cfg.NATS.Stream); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // past the duplicate window
			again := secondServerWith(t, h, cfg)
			again.Start()
			defer again.Close()
			for i := 10; i < 15; i++ {
				h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"c%d"}`, i)).want(201)
			}
			var ids []string
			var bodies [][]byte
			waitFor(t, 30*time.Second, "the new events in the stream", func() bool {
				ids, bodies = teamLog(t, h, h.token)
				return len(bodies) == 15 && len(natstest.Messages(t, broker.URL(), cfg.NATS.Stream)) >= 15
			})
			time.Sleep(300 * time.Millisecond)
			checkStream(t, natstest.Messages(t, broker.URL(), cfg.NATS.Stream), map[int][][]byte{1: bodies}, map[int][]string{1: ids})
		})
	}
}

// An event larger than the broker takes (max_payload) is published with
// its record's id only, as the log answers an event it cannot write out,
// and publishing goes on.
func TestTooLargeEventsArePublishedBare(t *testing.T) {
	broker := natstest.StartWith(t, "max_payload: 4096")
	h, cfg := publishingHarness(t, "sqlite3", broker)
	h.call("POST", "/v1/customers", `{"id":"big","phone":"`+strings.Repeat("9", 6000)+`"}`).want(201)
	h.call("POST", "/v1/customers", `{"id":"small"}`).want(201)
	var msgs []natstest.Message
	waitFor(t, 30*time.Second, "both events in the stream", func() bool {
		msgs = natstest.Messages(t, broker.URL(), cfg.NATS.Stream)
		return len(msgs) == 2
	})
	if !strings.Contains(string(msgs[0].Data), `"data":{"object":{"id":"big"}}`) || len(msgs[0].Data) > 4096 {
		t.Errorf("the large event: %.300s", msgs[0].Data)
	}
	if !strings.Contains(string(msgs[1].Data), `"id":"small","version":1`) {
		t.Errorf("the next event: %s", msgs[1].Data)
	}
}

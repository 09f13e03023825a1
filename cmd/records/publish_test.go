package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/natstest"
)

// Events published to NATS survive a server killed mid-stream (SIGKILL)
// and the broker stopped for 10 s, while writes go on in two teams: in the
// end the stream holds every event of each team's log exactly once, in
// the log's order, its body as the log answers it — though the stream's
// window for dropping duplicates is 100 ms.
func TestPublishingSurvivesSIGKILLAndABrokerOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a broker for 10 s")
	}
	bin := buildBinary(t)
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			broker := natstest.Start(t)
			b := make([]byte, 4)
			rand.Read(b)
			stream := "KILL" + strings.ToUpper(hex.EncodeToString(b))
			// A duplicate window far shorter than the outage: JetStream
			// drops no duplicate here, the publisher must make none.
			natstest.CreateStream(t, broker.URL(), stream, 100*time.Millisecond)
			url := dbtest.URL(t, d)
			args := []string{"--database-url", url, "--nats-url", broker.URL(), "--nats-stream", stream,
				"--rate-limit", "100000", "--rate-burst", "100000", "--log-level", "error"}
			first, base, printed := startServeOutput(t, bin, args...)
			tokens := []string{printed[len(printed)-1], createToken(t, url, "other")}

			var current atomic.Value
			current.Store(base)
			stop := make(chan struct{})
			var made atomic.Int64
			wg := writeCustomers(tokens, &current, stop, &made)
			time.Sleep(1500 * time.Millisecond)
			if err := first.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			first.Wait()
			_, base = startServe(t, bin, args...)
			current.Store(base)
			time.Sleep(time.Second)
			broker.Stop()
			time.Sleep(10 * time.Second)
			broker.Resume()
			time.Sleep(time.Second)
			close(stop)
			wg.Wait()

			// The logs and the stream are read until they hold as many
			// events, and the logs one at least for each create answered:
			// on a shared PostgreSQL server, another's transaction may hold
			// the log back a while, and the stream matched a log still
			// held back once (3,455 of 3,461).
			var want [][]byte
			var msgs []natstest.Message
			deadline := time.Now().Add(60 * time.Second)
			for {
				want = want[:0]
				for _, token := range tokens {
					want = append(want, eventLog(t, base, token)...)
				}
				msgs = natstest.Messages(t, broker.URL(), stream)
				if len(msgs) == len(want) && len(want) >= int(made.Load()) && len(want) > 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("%d records made, %d events in the logs, %d messages in the stream", made.Load(), len(want), len(msgs))
			checkStreamByTeam(t, base, tokens, msgs)
		})
	}
}

// writeCustomers creates customers with each token, one after another
// with a 5 ms pause, at the server current names, until stop; made counts
// the creates answered 201.
func writeCustomers(tokens []string, current *atomic.Value, stop <-chan struct{}, made *atomic.Int64) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w, token := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("POST", current.Load().(string)+"/v1/customers",
					strings.NewReader(fmt.Sprintf(`{"id":"w%d-%d"}`, w, i)))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 201 {
						made.Add(1)
					}
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return &wg
}

// checkStreamByTeam checks that the stream's messages hold each team's
// event log (the team of each token, at the server base) exactly, in
// order.
func checkStreamByTeam(t *testing.T, base string, tokens []string, msgs []natstest.Message) {
	t.Helper()
	byTeam := map[string][][]byte{}
	for _, m := range msgs {
		team := strings.Split(m.Subject, ".")[1]
		byTeam[team] = append(byTeam[team], m.Data)
	}
	for _, token := range tokens {
		log := eventLog(t, base, token)
		if len(log) == 0 {
			t.Fatal("a team's log is empty")
		}
		var e struct {
			Team int `json:"team_id"`
		}
		json.Unmarshal(log[0], &e)
		got := byTeam[fmt.Sprint(e.Team)]
		if len(got) != len(log) {
			t.Errorf("team %d: %d events in the stream, %d in the log", e.Team, len(got), len(log))
		}
		for i := range min(len(got), len(log)) {
			if !bytes.Equal(got[i], log[i]) {
				t.Fatalf("team %d, event %d: the stream holds %s, the log %s", e.Team, i, got[i], log[i])
			}
		}
	}
}

// createToken makes a token of a team with the CLI and returns its secret.
func createToken(t *testing.T, url, team string) string {
	t.Helper()
	code, out, errs := run(t, "token", "create", "--name", team, "--team", team, "--database-url", url)
	if code != 0 {
		t.Fatalf("token create: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// eventLog reads a team's whole event log through the API, each event as
// the log answers it.
func eventLog(t *testing.T, base, token string) [][]byte {
	t.Helper()
	var out [][]byte
	cursor := ""
	for {
		path := "/v1/events?limit=1000"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Events []json.RawMessage
			Paging struct {
				NextCursor *string `json:"next_cursor"`
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("reading the log: %d %v", resp.StatusCode, err)
		}
		for _, e := range page.Events {
			out = append(out, []byte(e))
		}
		if page.Paging.NextCursor == nil {
			return out
		}
		cursor = *page.Paging.NextCursor
	}
}

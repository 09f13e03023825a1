package servertest

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// SSEEvent is one event read from a stream: its id: and data: lines.
type SSEEvent struct{ ID, Data string }

// OpenStream connects to the event stream of a real server at url; the
// function it returns hangs up, as the test's end does at the latest (a
// stream left open would keep the server's Close waiting forever).
func OpenStream(t *testing.T, url, token string, headers ...string) (<-chan SSEEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
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
	out := make(chan SSEEvent, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var e SSEEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				e.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				e.Data = strings.TrimPrefix(line, "data: ")
			case line == "" && e.Data != "":
				out <- e
				e = SSEEvent{}
			}
		}
	}()
	return out, cancel
}

// NextEvent is the stream's next event, within 5 s.
func NextEvent(t *testing.T, c <-chan SSEEvent) SSEEvent {
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
	return SSEEvent{}
}

package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/query"
)

// Event ids are opaque: every team's events are numbered by one sequence,
// and an id that showed the number would tell a team how many events other
// teams' writes made between two of its own. Each id is the same wherever
// it is answered — another instance on the database, the record's history.
func TestEventIDsTellNothingOfOtherTeams(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		other := h.newToken("other", auth.Write, "another team")
		h.call("POST", "/v1/customers", `{"id":"a1"}`).want(201)
		for i := range 3 {
			h.callAs(other, "POST", "/v1/customers", fmt.Sprintf(`{"id":"b%d"}`, i)).want(201)
		}
		h.call("POST", "/v1/customers", `{"id":"a2"}`).want(201)
		evs := h.call("GET", "/v1/events", "").want(200).list("events")
		if len(evs) != 2 {
			t.Fatalf("%d events, want the team's 2", len(evs))
		}
		opaque := regexp.MustCompile(`^evt_[a-z2-7]{26}$`)
		ids := []string{dig(t, evs[0], "id").(string), dig(t, evs[1], "id").(string)}
		if !opaque.MatchString(ids[0]) || !opaque.MatchString(ids[1]) || ids[0] == ids[1] {
			t.Fatalf("event ids %q: want evt_ and 26 characters of base32, each its own", ids)
		}
		status, _, body := send(t, startServer(t, secondServer(t, h)), h.token, "GET", "/v1/events", "")
		var page struct{ Events []struct{ ID string } }
		if err := json.Unmarshal([]byte(body), &page); status != 200 || err != nil || len(page.Events) != 2 ||
			page.Events[0].ID != ids[0] || page.Events[1].ID != ids[1] {
			t.Fatalf("another instance answers %d %s, want the ids %q", status, body, ids)
		}
		history := h.call("GET", "/v1/customers/a2/history", "").want(200).list("events")
		if len(history) != 1 || dig(t, history[0], "id") != ids[1] {
			t.Fatalf("a2's history: %v, want its event %s", history, ids[1])
		}
	})
}

// The cursors of the log and of a history hold the events' places
// enciphered: a cursor is signed, not secret, and the numbers in it would
// tell what the ids hide. A cursor made before, with the numbers in the
// clear, still reads.
func TestEventCursorsTellNothingOfOtherTeams(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"a1"}`).want(201)
		h.call("PATCH", "/v1/customers/a1", `{"email":"a@example.com"}`).want(200)
		h.follow().pollFor(2) // a transaction of the database (another test's) may hold the log back
		clear := regexp.MustCompile(`^[0-9.]*$`)
		for _, path := range []string{"/v1/events?limit=1", "/v1/customers/a1/history?limit=1"} {
			cursor := h.call("GET", path, "").want(200).obj("paging")["next_cursor"].(string)
			payload, _, _ := strings.Cut(cursor, ".")
			raw, err := base64.RawURLEncoding.DecodeString(payload)
			var body struct{ I string }
			if err != nil || json.Unmarshal(raw, &body) != nil || body.I == "" || clear.MatchString(body.I) {
				t.Fatalf("%s: the cursor %s holds %s", path, cursor, raw)
			}
			if n := len(h.call("GET", path+"&cursor="+cursor, "").want(200).list("events")); n != 1 {
				t.Fatalf("%s after its cursor: %d events", path, n)
			}
		}
		key, err := h.db.Key(context.Background(), "cursors", 32)
		if err != nil {
			t.Fatal(err)
		}
		old := query.NewCursors(key).EncodeID(query.Binding{Resource: "events", Team: 1}, "0.0")
		if n := len(h.call("GET", "/v1/events?cursor="+old, "").want(200).list("events")); n != 2 {
			t.Fatalf("after a cursor made before, at the start: %d events", n)
		}
	})
}

// An event is never stamped before the change it tells of: since= the
// record's own stamp answers its creation, on both databases (SQLite's
// clock has milliseconds only; the events take the records' clock).
func TestEventsSinceAChangeIncludeIt(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for i := range 20 {
			rec := h.call("POST", "/v1/vendors", "{}").want(201).obj()
			at := rec["created_at"].(string)
			var evs []any
			// A transaction of the database (another test's) may hold the log back: a
			// while, then the event is there.
			for wait := time.Now().Add(10 * time.Second); len(evs) == 0 && time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
				evs = h.call("GET", "/v1/events?filter[type]=vendors.created&since="+at, "").want(200).list("events")
			}
			if len(evs) != 1 || dig(t, evs[0], "data", "object", "id") != rec["id"] {
				t.Fatalf("try %d: since %s: %v", i, at, evs)
			}
			occurred, err1 := time.Parse(time.RFC3339Nano, dig(t, evs[0], "occurred_at").(string))
			stamped, err2 := time.Parse(time.RFC3339Nano, at)
			if err1 != nil || err2 != nil || occurred.Before(stamped) {
				t.Fatalf("try %d: the event at %v, the record's stamp %v (%v, %v)", i, occurred, stamped, err1, err2)
			}
		}
	})
}

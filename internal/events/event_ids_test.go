package events_test

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
	"records/internal/servertest"
)

// Event ids are opaque: every team's events are numbered by one sequence,
// and an id that showed the number would tell a team how many events other
// teams' writes made between two of its own. Each id is the same wherever
// it is answered — another instance on the database, the record's history.
func TestEventIDsTellNothingOfOtherTeams(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		other := h.NewToken("other", auth.Write, "another team")
		h.Call("POST", "/v1/customers", `{"id":"a1"}`).Want(201)
		for i := range 3 {
			h.CallAs(other, "POST", "/v1/customers", fmt.Sprintf(`{"id":"b%d"}`, i)).Want(201)
		}
		h.Call("POST", "/v1/customers", `{"id":"a2"}`).Want(201)
		// A transaction of the database (another test's) may hold the log
		// back a moment.
		evs := h.Call("GET", "/v1/events", "").Want(200).List("events")
		for deadline := time.Now().Add(10 * time.Second); len(evs) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			evs = h.Call("GET", "/v1/events", "").Want(200).List("events")
		}
		if len(evs) != 2 {
			t.Fatalf("%d events, want the team's 2", len(evs))
		}
		opaque := regexp.MustCompile(`^evt_[a-z2-7]{26}$`)
		ids := []string{servertest.Dig(t, evs[0], "id").(string), servertest.Dig(t, evs[1], "id").(string)}
		if !opaque.MatchString(ids[0]) || !opaque.MatchString(ids[1]) || ids[0] == ids[1] {
			t.Fatalf("event ids %q: want evt_ and 26 characters of base32, each its own", ids)
		}
		status, _, body := servertest.Send(t, servertest.Serve(t, servertest.SecondServer(t, h, servertest.Config())), h.Token, "GET", "/v1/events", "")
		var page struct{ Events []struct{ ID string } }
		if err := json.Unmarshal([]byte(body), &page); status != 200 || err != nil || len(page.Events) != 2 ||
			page.Events[0].ID != ids[0] || page.Events[1].ID != ids[1] {
			t.Fatalf("another instance answers %d %s, want the ids %q", status, body, ids)
		}
		history := h.Call("GET", "/v1/customers/a2/history", "").Want(200).List("events")
		if len(history) != 1 || servertest.Dig(t, history[0], "id") != ids[1] {
			t.Fatalf("a2's history: %v, want its event %s", history, ids[1])
		}
	})
}

// The cursors of the log and of a history hold the events' places
// enciphered: a cursor is signed, not secret, and the numbers in it would
// tell what the ids hide. A cursor made before, with the numbers in the
// clear, still reads.
func TestEventCursorsTellNothingOfOtherTeams(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		h.Call("POST", "/v1/customers", `{"id":"a1"}`).Want(201)
		h.Call("PATCH", "/v1/customers/a1", `{"email":"a@example.com"}`).Want(200)
		follow(h).pollFor(2) // a transaction of the database (another test's) may hold the log back
		clear := regexp.MustCompile(`^[0-9.]*$`)
		for _, path := range []string{"/v1/events?limit=1", "/v1/customers/a1/history?limit=1"} {
			cursor := h.Call("GET", path, "").Want(200).Obj("paging")["next_cursor"].(string)
			payload, _, _ := strings.Cut(cursor, ".")
			raw, err := base64.RawURLEncoding.DecodeString(payload)
			var body struct{ I string }
			if err != nil || json.Unmarshal(raw, &body) != nil || body.I == "" || clear.MatchString(body.I) {
				t.Fatalf("%s: the cursor %s holds %s", path, cursor, raw)
			}
			if n := len(h.Call("GET", path+"&cursor="+cursor, "").Want(200).List("events")); n != 1 {
				t.Fatalf("%s after its cursor: %d events", path, n)
			}
		}
		key, err := h.DB.Key(context.Background(), "cursors", 32)
		if err != nil {
			t.Fatal(err)
		}
		old := query.NewCursors(key).EncodeID(query.Binding{Resource: "events", Team: 1}, "0.0")
		if n := len(h.Call("GET", "/v1/events?cursor="+old, "").Want(200).List("events")); n != 2 {
			t.Fatalf("after a cursor made before, at the start: %d events", n)
		}
	})
}

// An event is never stamped before the change it tells of: since= the
// record's own stamp answers its creation, on both databases (SQLite's
// clock has milliseconds only; the events take the records' clock).
func TestEventsSinceAChangeIncludeIt(t *testing.T) {
	servertest.Each(t, func(t *testing.T, h *servertest.Harness) {
		for i := range 20 {
			rec := h.Call("POST", "/v1/vendors", "{}").Want(201).Obj()
			at := rec["created_at"].(string)
			var evs []any
			// A transaction of the database (another test's) may hold the log back: a
			// while, then the event is there.
			for wait := time.Now().Add(10 * time.Second); len(evs) == 0 && time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
				evs = h.Call("GET", "/v1/events?filter[type]=vendors.created&since="+at, "").Want(200).List("events")
			}
			if len(evs) != 1 || servertest.Dig(t, evs[0], "data", "object", "id") != rec["id"] {
				t.Fatalf("try %d: since %s: %v", i, at, evs)
			}
			occurred, err1 := time.Parse(time.RFC3339Nano, servertest.Dig(t, evs[0], "occurred_at").(string))
			stamped, err2 := time.Parse(time.RFC3339Nano, at)
			if err1 != nil || err2 != nil || occurred.Before(stamped) {
				t.Fatalf("try %d: the event at %v, the record's stamp %v (%v, %v)", i, occurred, stamped, err1, err2)
			}
		}
	})
}

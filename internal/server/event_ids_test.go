package server_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"records/internal/auth"
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

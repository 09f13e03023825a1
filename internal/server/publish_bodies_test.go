package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/natstest"
)

// An event's record is the record as a read answered it right after the
// change, byte for byte, whether its image is spliced (strings, integers,
// booleans, as the database wrote them) or scanned and encoded (any other
// member, an escape), for every resource and kind of event; a deletion's
// is the record's id. JetStream holds the log's answer for each.
func TestPublishedEventsHoldTheRecordsRead(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			broker := natstest.Start(t)
			h, cfg := publishingHarness(t, d, broker)
			var want [][]byte // each event's record, in the log's order
			read := func(plural, id string) {
				body := h.call("GET", "/v1/"+plural+"/"+id, "").want(200).Body
				var list map[string]json.RawMessage // GET /v1/users/{id} answers a list
				var items []json.RawMessage
				if json.Unmarshal(body, &list) == nil && json.Unmarshal(list[plural], &items) == nil && len(items) == 1 {
					body = items[0]
				}
				want = append(want, body)
			}
			for plural := range plurals { // every resource that takes a body of its id alone
				if r := h.call("POST", "/v1/"+plural, `{"id":"e-`+plural+`"}`); r.Status == 201 {
					read(plural, "e-"+plural)
					h.call("DELETE", "/v1/"+plural+"/e-"+plural, "").want(200)
					want = append(want, []byte(`{"id":"e-`+plural+`"}`))
					h.call("POST", "/v1/"+plural+"/e-"+plural+"/restore", "").want(200)
					read(plural, "e-"+plural)
				}
			}
			if len(want) < 3*len(plurals)*2/3 {
				t.Fatalf("%d resources take a body of an id alone", len(want)/3)
			}
			writeOddly(h, read, func(record string) { want = append(want, []byte(record)) })

			var ids []string
			var bodies [][]byte
			var msgs []natstest.Message
			waitFor(t, 30*time.Second, "every event in the stream", func() bool {
				ids, bodies = teamLog(t, h, h.token)
				msgs = natstest.Messages(t, broker.URL(), cfg.NATS.Stream)
				return len(bodies) == len(want) && len(msgs) == len(want)
			})
			var team struct {
				Team int `json:"team_id"`
			}
			json.Unmarshal(bodies[0], &team)
			checkStream(t, msgs, map[int][][]byte{team.Team: bodies}, map[int][]string{team.Team: ids})
			for i, body := range bodies {
				var ev struct {
					Type string
					Data struct{ Object json.RawMessage }
				}
				if err := json.Unmarshal(body, &ev); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(ev.Data.Object, want[i]) {
					t.Errorf("event %d (%s): its record\n%s\nthe read's\n%s", i, ev.Type, ev.Data.Object, want[i])
				}
			}
		})
	}
}

// writeOddly makes, changes, reverts, deletes and restores records whose
// members hold what JSON escapes or what a splice of the image must keep
// as it is, calling read after each write of a record and deleted with a
// deletion's record.
func writeOddly(h *harness, read func(plural, id string), deleted func(record string)) {
	odd := []string{"Ann é 😀 ∑", `quote " back \ slash`, "tab\tnew\nline", "sep\u2028arator", "", strings.Repeat("long ", 200)}
	for i, s := range odd {
		name, _ := json.Marshal(s)
		id := fmt.Sprintf("c%d", i)
		h.call("POST", "/v1/customers", `{"id":"`+id+`","firstName":`+string(name)+`,"phone":"+1 555 0100"}`).want(201)
		read("customers", id)
		h.call("PATCH", "/v1/customers/"+id, `{"lastName":`+string(name)+`,"phone":null}`).want(200)
		read("customers", id)
		h.call("POST", "/v1/contacts", `{"id":"`+id+`","first_name":`+string(name)+`,"do_not_call":true}`).want(201)
		read("contacts", id)
		h.call("PUT", "/v1/suppliers/"+id, `{"name":`+string(name)+`}`).want(201)
		read("suppliers", id)
	}
	h.call("PATCH", "/v1/contacts/c0", `{"do_not_call":false,"email_opt_out":null}`).want(200)
	read("contacts", "c0")
	h.call("POST", "/v1/vendors", `{"id":"v1","vendorName":"v-1"}`).want(201)
	read("vendors", "v1")
	h.call("PATCH", "/v1/vendors/v1", `{"vendorName":"v-2","vendorNotes":"ß"}`).want(200)
	read("vendors", "v1")
	h.call("POST", "/v1/vendors/v1/revert", `{"version":1}`).want(200)
	read("vendors", "v1")
	h.call("DELETE", "/v1/customers/c1", "").want(200)
	deleted(`{"id":"c1"}`)
	h.call("POST", "/v1/customers/c1/restore", "").want(200)
	read("customers", "c1")

}

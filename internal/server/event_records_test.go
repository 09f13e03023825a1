package server_test

import (
	"reflect"
	"strings"
	"testing"
)

// An event's record is the record a read answered after the change,
// member for member, for every type of member.
func TestEventRecordsAreTheRecordsRead(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for plural := range plurals {
			id := "img-" + plural
			body := sampleBody(plural)
			rest := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}"))
			body = `{"id":"` + id + `"`
			if rest != "" {
				body += "," + rest
			}
			body += "}"
			h.call("POST", "/v1/"+plural, body).want(201)
			want := read(plural, h.call("GET", "/v1/"+plural+"/"+id, "").want(200))
			hist := h.call("GET", "/v1/"+plural+"/"+id+"/history", "").want(200).list("events")
			if len(hist) != 1 {
				t.Fatalf("%s: %d events", plural, len(hist))
			}
			if got := dig(t, hist[0], "data", "object"); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the event's record\n%v\ndiffers from the read\n%v", plural, got, want)
			}
		}
	})
}

package engine

import (
	"errors"
	"slices"
	"testing"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

type thing struct{}

func members(t *testing.T, body string) []wire.Member {
	t.Helper()
	m, err := ParseBody([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// faulty returns the members a problem names, or fails.
func faulty(t *testing.T, err error) []string {
	t.Helper()
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != problem.InvalidRequest {
		t.Fatalf("want a 400 problem, got %v", err)
	}
	var out []string
	for _, m := range p.Members {
		out = append(out, m.Member)
	}
	return out
}

// parse sorts a body into id, parent and members, applying the operation's
// options; every problem is reported at once, naming its member.
func TestParse(t *testing.T) {
	update := &Op[thing]{IDMembers: []string{"return_id", "id"}, Wrapper: "return", Ignore: []string{"token"}}
	aliased := &Op[thing]{IDMembers: []string{"id", "_id"}, Aliases: map[string]string{"status": "po_status"}}
	byParent := &Op[thing]{IDMembers: []string{"id"}, By: "case_id"}
	upsert := &Op[thing]{Kind: spec.Upsert, IDMembers: []string{"id"}}
	cases := []struct {
		name    string
		op      *Op[thing]
		path    string
		body    string
		id      string
		members []string // resource names of the record's members
		by      string
		bad     []string // members at fault
	}{
		{name: "flat", op: update, body: `{"id":"r1","status":"open"}`, id: "r1", members: []string{"status"}},
		{name: "wrapped", op: update, body: `{"return_id":"r1","return":{"id":"r1","status":"open"}}`, id: "r1", members: []string{"status"}},
		{name: "wrapped ids disagree", op: update, body: `{"return_id":"r1","return":{"id":"r2"}}`, bad: []string{"return.id"}},
		{name: "member beside the wrapper", op: update, body: `{"return":{},"status":"x"}`, bad: []string{"status"}},
		{name: "wrapper not an object", op: update, body: `{"return":[1]}`, bad: []string{"return"}},
		{name: "ignored member dropped", op: update, body: `{"id":"r1","token":"x"}`, id: "r1"},
		{name: "path id and body id agree", op: update, path: "r1", body: `{"id":"r1"}`, id: "r1"},
		{name: "path id and body id disagree", op: update, path: "r1", body: `{"id":"r2"}`, bad: []string{"id"}},
		{name: "bad path id of an upsert", op: upsert, path: "a\x01b", bad: []string{"id"}},
		{name: "alias", op: aliased, body: `{"_id":"p1","status":"open"}`, id: "p1", members: []string{"po_status"}},
		{name: "id not a string", op: aliased, body: `{"id":{}}`, bad: []string{"id"}},
		{name: "by parent", op: byParent, body: `{"case_id":"c1"}`, by: "c1"},
		{name: "by parent of a bad id", op: byParent, body: `{"case_id":true}`, bad: []string{"case_id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := c.op.parse(c.path, members(t, c.body))
			if c.bad != nil {
				if got := faulty(t, err); !slices.Equal(got, c.bad) {
					t.Fatalf("members at fault %v, want %v", got, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range req.record {
				names = append(names, m.name)
			}
			if req.id != c.id || req.hasID != (c.id != "") || !slices.Equal(names, c.members) || req.by != c.by {
				t.Fatalf("id %q, members %v, by %q", req.id, names, req.by)
			}
		})
	}
}

// An id in the path that no record could have is a 404 where the record
// must exist, and a 400 naming the id where it would be created (above).
func TestImpossiblePathIDIsNotFound(t *testing.T) {
	patch := &Op[thing]{Kind: spec.Patch, Res: &Resource[thing]{Object: "thing"}, IDMembers: []string{"id"}}
	_, err := patch.parse("a\x01b", nil)
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != problem.NotFound {
		t.Fatalf("want a 404 problem, got %v", err)
	}
}

func TestParseBody(t *testing.T) {
	for body, want := range map[string]problem.Code{
		`{"a":1`:        problem.InvalidJSON,
		`{"a":1,"a":2}`: problem.InvalidRequest,
		`[1]`:           problem.InvalidRequest,
		"\"\xff\"":      problem.InvalidJSON,
	} {
		_, err := ParseBody([]byte(body))
		var p *problem.Error
		if !errors.As(err, &p) || p.Code != want {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
	if m, err := ParseBody(nil); err != nil || len(m) != 0 {
		t.Errorf("an empty body is {}: %v %v", m, err)
	}
}

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                true,
		"application/json; charset=utf-8": true,
		"application/merge-patch+json":    true,
		"text/json":                       false,
		"application/xml":                 false,
		"":                                false,
		"application/json; =":             false,
	} {
		if got := isJSON(ct); got != want {
			t.Errorf("isJSON(%q) = %v", ct, got)
		}
	}
}

package engine

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"records/internal/problem"
	"records/internal/wire"
)

// memberAtFault holds that err is a 400 naming member alone.
func memberAtFault(t *testing.T, err error, member string) {
	t.Helper()
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != problem.InvalidRequest || len(p.Members) != 1 || p.Members[0].Member != member {
		t.Fatalf("want a 400 naming %s, got %v", member, err)
	}
}

// The trashed parameter of a list, from a body member and the query
// string: one of the three ways of seeing the trash, or a 400 naming it;
// either way taken out of both, the other parameters left.
func FuzzTakeTrashed(f *testing.F) {
	f.Add(`"only"`, "include", true)
	f.Add(`"include"`, "", false)
	f.Add(`1`, "only", true)
	f.Fuzz(func(t *testing.T, body, query string, inQuery bool) {
		if !json.Valid([]byte(body)) {
			t.Skip("a body's members are JSON values: the parser refused it before")
		}
		members := []wire.Member{{Name: "limit", Value: []byte("1")}, {Name: ParamTrashed, Value: []byte(body)}}
		q := url.Values{"limit": {"1"}}
		if inQuery {
			q.Set(ParamTrashed, query)
		}
		tr, rest, err := takeTrashed(members, q)
		if _, ok := q[ParamTrashed]; ok || len(q) != 1 {
			t.Fatalf("the query string keeps %v", q)
		}
		if err != nil {
			memberAtFault(t, err, ParamTrashed)
			return
		}
		if len(rest) != 1 || rest[0].Name != "limit" {
			t.Fatalf("the members left are %v", rest)
		}
		if tr != TrashOnly && tr != TrashIncluded {
			t.Fatalf("%q read as %v", body, tr)
		}
	})
}

// The version of a revert: a whole number from 1, alone in the body.
func FuzzTakeVersion(f *testing.F) {
	f.Add(`3`, false)
	f.Add(`"3"`, true)
	f.Add(`0`, false)
	f.Fuzz(func(t *testing.T, value string, more bool) {
		if !json.Valid([]byte(value)) {
			t.Skip("a body's members are JSON values: the parser refused it before")
		}
		req := &request{record: []namedMember{{written: "version", name: "version", value: []byte(value)}}}
		if more {
			req.record = append(req.record, namedMember{written: "name", name: "name", value: []byte(`"x"`)})
		}
		op := &Op[struct{}]{}
		v, err := op.takeVersion(req)
		if err != nil {
			var p *problem.Error
			if !errors.As(err, &p) || p.Code != problem.InvalidRequest {
				t.Fatalf("want a 400, got %v", err)
			}
			return
		}
		if v < 1 || more {
			t.Fatalf("%q (more: %v) read as version %d", value, more, v)
		}
	})
}

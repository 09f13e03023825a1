package query

import (
	"errors"
	"net/url"
	"testing"

	"records/internal/problem"
	"records/internal/wire"
)

// FuzzParseRequest: any body and query string give list parameters or a
// 400 problem naming what is wrong — never another error, never a panic —
// and parameters that parse compile to SQL for both databases.
func FuzzParseRequest(f *testing.F) {
	for _, c := range [][2]string{
		{`{}`, ``}, {`{"filter":{"price":{"gte":10}}}`, `limit=5`}, {`{}`, `filter[status][in]=a,b&order_by=-createdAt`},
		{`{"filter":{"or":[{"status":"x"},{"not":{"paid":true}}]}}`, `count=exact`}, {`{}`, `filter[due][lt]=2026-01-01&fields=id,status`},
		{`{"order_by":"price,-qty","offset":3}`, `expand=lines`}, {`{}`, `filter[sso_id]=a%00b`}, {`{}`, `cursor=abc.def`},
		{`{"filter":{"createdAt":{"is_null":false}}}`, `filter[qty][nin]=1,2,3`}, {`{"limit":"7"}`, `filter[status][contains]=%ff`},
		{`{}`, `filter[or][0][status]=a&filter[or][1][not][qty][gt]=2`}, {`{}`, `filter[qty][in][0]=1&filter[qty][in][3]=4&filter[and][0][paid]=true`},
	} {
		f.Add(c[0], c[1])
	}
	cursors := NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, body, rawQuery string) {
		members, err := wire.ParseObject([]byte(body))
		if err != nil {
			return
		}
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		r, err := ParseRequest(members, q, testList)
		if err != nil {
			var p *problem.Error
			if !errors.As(err, &p) || p.Code != problem.InvalidRequest {
				t.Fatalf("body %q query %q: want a 400 problem, got %v", body, rawQuery, err)
			}
			return
		}
		if r.Cursor != "" {
			if _, err := cursors.Decode(r.Cursor, Binding{Resource: "things", Team: 1}, r.Keys); err != nil && !errors.Is(err, ErrCursor) {
				t.Fatalf("cursor %q: %v", r.Cursor, err)
			}
		}
		for _, d := range []Dialect{SQLite, Postgres} {
			_, _ = Where(d, r.Filter)
		}
	})
}

// FuzzCursorDecode: any text sent as a cursor is a position or ErrCursor.
func FuzzCursorDecode(f *testing.F) {
	c := NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	keys := []Key{{Col: testList.Columns["createdAt"]}, {Col: testList.Columns["id"]}}
	b := Binding{Resource: "things", Team: 1, Shape: "x"}
	f.Add(c.Encode(b, keys, Position{Values: []any{nil}, ID: "a"}))
	f.Add("")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		if _, err := c.Decode(token, b, keys); err != nil && !errors.Is(err, ErrCursor) {
			t.Fatalf("cursor %q: %v", token, err)
		}
	})
}

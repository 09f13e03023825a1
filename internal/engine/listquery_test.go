package engine

import (
	"net/url"
	"slices"
	"testing"
)

var testColumns = map[string]Column{
	"id":     {Name: "id", Parse: Parse(stringParam)},
	"status": {Name: "status", Parse: Parse(stringParam)},
	"sso_id": {Name: "sso_id", Parse: Parse(stringParam)},
}

func stringParam(v []byte) (string, error) { return string(v), nil }

func TestParseListQuery(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		query  string
		limit  int
		offset int
		order  string
		desc   bool
		filter []string // columns filtered, null ones marked "=null"
		bad    []string
	}{
		{name: "defaults", limit: 100, order: "id"},
		{name: "body", body: `{"limit":"5","offset":10,"order_by":"status","order_direction":"DESC"}`, limit: 5, offset: 10, order: "status", desc: true},
		{name: "query", query: "limit=7&order_direction=asc", limit: 7, order: "id"},
		{name: "the body wins", body: `{"limit":3}`, query: "limit=9", limit: 3, order: "id"},
		{name: "filters", body: `{"filter":{"status":"open","sso_id":null}}`, limit: 100, order: "id", filter: []string{"sso_id=null", "status"}},
		{name: "query filters", query: "filter[status]=open", limit: 100, order: "id", filter: []string{"status"}},
		{name: "an extra filter member", body: `{"sso_id":"s1"}`, limit: 100, order: "id", filter: []string{"sso_id"}},
		{name: "limit out of range", body: `{"limit":1001}`, bad: []string{"limit"}},
		{name: "limit zero", query: "limit=0", bad: []string{"limit"}},
		{name: "negative offset", body: `{"offset":-1}`, bad: []string{"offset"}},
		{name: "bad direction", body: `{"order_direction":"up"}`, bad: []string{"order_direction"}},
		{name: "unknown order", body: `{"order_by":"nope"}`, bad: []string{"order_by"}},
		{name: "unknown filter", body: `{"filter":{"nope":1}}`, bad: []string{"filter.nope"}},
		{name: "filter not an object", body: `{"filter":[1]}`, bad: []string{"filter"}},
		{name: "unknown member", body: `{"limt":5}`, bad: []string{"limt"}},
		{name: "unknown query parameter", query: "nope=1", bad: []string{"nope"}},
		{name: "every fault at once", body: `{"limit":0,"offset":-1}`, bad: []string{"limit", "offset"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, _ := url.ParseQuery(c.query)
			lq, err := parseListQuery(members(t, c.body), q, testColumns, []string{"sso_id"})
			if c.bad != nil {
				got := faulty(t, err)
				slices.Sort(got)
				if !slices.Equal(got, c.bad) {
					t.Fatalf("members at fault %v, want %v", got, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var filters []string
			for _, f := range lq.Filters {
				if f.Value == nil {
					filters = append(filters, f.Column+"=null")
				} else {
					filters = append(filters, f.Column)
				}
			}
			if lq.Limit != c.limit || lq.Offset != c.offset || lq.OrderBy != c.order || lq.Desc != c.desc || !slices.Equal(filters, c.filter) {
				t.Fatalf("got %+v (filters %v)", lq, filters)
			}
		})
	}
}

// Nulls sort last going up and first going down on both databases; the id
// always breaks ties.
func TestOrderSQL(t *testing.T) {
	for _, c := range []struct {
		q    ListQuery
		want string
	}{
		{ListQuery{OrderBy: "id"}, `"id" ASC`},
		{ListQuery{OrderBy: "id", Desc: true}, `"id" DESC`},
		{ListQuery{OrderBy: "status"}, `"status" ASC NULLS LAST, "id" ASC`},
		{ListQuery{OrderBy: "status", Desc: true}, `"status" DESC NULLS FIRST, "id" DESC`},
	} {
		if got := c.q.orderSQL(); got != c.want {
			t.Errorf("%+v: %s", c.q, got)
		}
	}
}

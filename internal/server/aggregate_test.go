package server_test

import (
	"encoding/json"
	"testing"
)

// aggregateSeed are packing list items and users whose totals the tests
// ask for.
func seedAggregates(h *harness) {
	for _, body := range []string{
		`{"id":"i-1","sku":"a","quantity":2,"arrived":true}`,
		`{"id":"i-2","sku":"a","quantity":3,"arrived":false}`,
		`{"id":"i-3","sku":"b","quantity":10,"arrived":true}`,
		`{"id":"i-4","quantity":1}`,
		`{"id":"i-5","sku":"b"}`,
	} {
		h.call("POST", "/v1/packing_list_items", body).want(201)
	}
}

// canon is JSON re-encoded, so answers compare whatever their spacing.
func canon(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The same aggregates answer the same groups on both databases: counts,
// sums, averages to six places, minimums and maximums, nulls grouped
// under null, orders by a metric, limit and truncated.
func TestAggregatesAnswerTheSameOnBothDatabases(t *testing.T) {
	cases := []struct{ query, want string }{
		{"", `{"groups":[{"count":5,"key":{}}],"truncated":false}`},
		{"group_by=sku&metrics=count,sum:quantity,avg:quantity,min:quantity,max:id",
			`{"groups":[{"avg_quantity":2.5,"count":2,"key":{"sku":"a"},"max_id":"i-2","min_quantity":2,"sum_quantity":5},` +
				`{"avg_quantity":10,"count":2,"key":{"sku":"b"},"max_id":"i-5","min_quantity":10,"sum_quantity":10},` +
				`{"avg_quantity":1,"count":1,"key":{"sku":null},"max_id":"i-4","min_quantity":1,"sum_quantity":1}],"truncated":false}`},
		{"group_by=sku&metrics=avg:quantity&filter[sku]=a",
			`{"groups":[{"avg_quantity":2.5,"key":{"sku":"a"}}],"truncated":false}`},
		{"group_by=sku&metrics=sum:quantity&order_by=-sum_quantity&limit=1",
			`{"groups":[{"key":{"sku":"b"},"sum_quantity":10}],"truncated":true}`},
		{"group_by=arrived,sku&filter[quantity][gt]=1",
			`{"groups":[{"count":1,"key":{"arrived":false,"sku":"a"}},{"count":1,"key":{"arrived":true,"sku":"a"}},{"count":1,"key":{"arrived":true,"sku":"b"}}],"truncated":false}`},
	}
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true
		seedAggregates(h)
		for _, c := range cases {
			r := h.call("GET", "/v1/packing_list_items/aggregate?"+c.query, "").want(200)
			if got := canon(t, r.at()); got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.query, got, c.want)
			}
		}
	})
}

// Every refusal of an aggregate names its parameter.
func TestAggregateRefusalsNameTheParameter(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true
		cases := []struct{ query, body, member string }{
			{"group_by=sku,nope", "", "group_by[1]"},
			{"group_by=sku:day", "", "group_by[0]"},
			{"group_by=a,b,c,d", "", "group_by[0]"},
			{"metrics=count,sum:sku", "", "metrics[1]"},
			{"metrics=median:price", "", "metrics[0]"},
			{"metrics=avg:nope", "", "metrics[0]"},
			{"", `{"group_by":["sku","sku","arrived","quantity"]}`, "group_by"},
			{"order_by=-nope", "", "order_by"},
			{"limit=1001", "", "limit"},
			{"q=box", "", "q"},
			{"metrics=sum:arrived", "", "metrics[0]"},
			{"filter[nope]=1", "", "filter.nope"},
			{"having=1", "", "having"},
			{"metrics=", "", "metrics"},
			{"metrics=%20", "", "metrics"},
			{"", `{"metrics":[]}`, "metrics"},
			{"group_by=arrived,sku,arrived", "", "group_by[2]"},
			{"group_by=sku&metrics=count,sum:quantity,count", "", "metrics[2]"},
			{"", `{"group_by":[1]}`, "group_by[0]"},
		}
		for _, c := range cases {
			h.call("GET", "/v1/packing_list_items/aggregate?"+c.query, c.body).problem(400, "invalid_request", c.member)
		}
		h.call("GET", "/v1/users/aggregate?group_by=last_seen", "").problem(400, "invalid_request", "group_by[0]")
	})
}

// Sums and averages at their edges answer alike on both databases: sums
// of whole numbers exact past 64 bits, sums of numbers to 15 significant
// digits, averages rounded to six places by the service (never -0), and a
// figure beyond a double a 400 naming its metric, never a 500 or a null.
func TestAggregateFiguresAtTheirEdges(t *testing.T) {
	cases := []struct{ path, body, want string }{
		{"/v1/packing_list_items/aggregate?group_by=sku&metrics=sum:quantity,avg:quantity&order_by=-sum_quantity", "",
			`{"groups":[{"avg_quantity":null,"key":{"sku":"none"},"sum_quantity":null},` +
				`{"avg_quantity":9223372036854776000,"key":{"sku":"big"},"sum_quantity":18446744073709551614},` +
				`{"avg_quantity":-1.5,"key":{"sku":"neg"},"sum_quantity":-3}],"truncated":false}`},
		{"/v1/bill_of_materials_line_items/aggregate?group_by=part_name&metrics=sum:quantity,avg:quantity&filter[part_name][in]=tenths,half", "",
			`{"groups":[{"avg_quantity":0.123456,"key":{"part_name":"half"},"sum_quantity":0.1234565},` +
				`{"avg_quantity":0.15,"key":{"part_name":"tenths"},"sum_quantity":0.3}],"truncated":false}`},
		{"/v1/bill_of_materials_line_items/aggregate?group_by=part_name&metrics=avg:quantity&filter[part_name][in]=tiny,minus", "",
			`{"groups":[{"avg_quantity":0,"key":{"part_name":"minus"}},{"avg_quantity":0,"key":{"part_name":"tiny"}}],"truncated":false}`},
		{"/v1/work_order_line_items/aggregate?metrics=sum:total_quantity", "",
			`{"groups":[{"key":{},"sum_total_quantity":0.3}],"truncated":false}`},
	}
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true
		h.call("POST", "/v1/packing_list_items", `[{"sku":"big","quantity":9223372036854775807},{"sku":"big","quantity":9223372036854775807},`+
			`{"sku":"neg","quantity":-5},{"sku":"neg","quantity":2},{"sku":"none"}]`).want(201)
		h.call("POST", "/v1/bill_of_materials_line_items", `[{"part_name":"tenths","quantity":0.1},{"part_name":"tenths","quantity":0.2},`+
			`{"part_name":"half","quantity":0.1234565},{"part_name":"tiny","quantity":0.0000005},{"part_name":"minus","quantity":-0.0000005},`+
			`{"part_name":"huge","quantity":1.7e308},{"part_name":"huge","quantity":1.7e308}]`).want(201)
		h.call("POST", "/v1/work_order_line_items", `[{"total_quantity":0.1},{"total_quantity":0.2}]`).want(201)
		for _, c := range cases {
			r := h.call("GET", c.path, c.body).want(200)
			if got := canon(t, r.at()); got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.path, got, c.want)
			}
		}
		for _, m := range []string{"sum:quantity", "avg:quantity"} {
			h.call("GET", "/v1/bill_of_materials_line_items/aggregate?metrics=count,"+m+"&filter[part_name]=huge", "").problem(400, "invalid_request", "metrics[1]")
		}
	})
}

// Aggregates take q, and group dates and date-times by buckets in UTC.
func TestAggregatesSearchAndBucketDates(t *testing.T) {
	cases := []struct{ path, want string }{
		{"/v1/returns/aggregate?group_by=status&q=refund",
			`{"groups":[{"count":1,"key":{"status":"closed"}},{"count":2,"key":{"status":"open"}}],"truncated":false}`},
		{"/v1/users/aggregate?group_by=last_seen:month&metrics=count,min:last_seen",
			`{"groups":[{"count":2,"key":{"last_seen:month":"2026-01-01"},"min_last_seen":"2026-01-05T10:00:00Z"},` +
				`{"count":1,"key":{"last_seen:month":"2026-02-01"},"min_last_seen":"2026-02-01T00:30:00Z"},` +
				`{"count":1,"key":{"last_seen:month":null},"min_last_seen":null}],"truncated":false}`},
		{"/v1/users/aggregate?group_by=last_seen:week,birthday:year&order_by=-count",
			`{"groups":[{"count":2,"key":{"birthday:year":"1990-01-01","last_seen:week":"2026-01-26"}},` +
				`{"count":1,"key":{"birthday:year":"1991-01-01","last_seen:week":"2026-01-05"}},` +
				`{"count":1,"key":{"birthday:year":null,"last_seen:week":null}}],"truncated":false}`},
		{"/v1/users/aggregate?group_by=birthday",
			`{"groups":[{"count":2,"key":{"birthday":"1990-05-01"}},{"count":1,"key":{"birthday":"1991-07-04"}},{"count":1,"key":{"birthday":null}}],"truncated":false}`},
	}
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true
		seedSearch(h)
		for _, body := range []string{
			`{"id":"u-1","last_seen":"2026-01-31T23:30:00Z","birthday":"1990-05-01"}`,
			`{"id":"u-2","last_seen":"2026-02-01T01:30:00+01:00","birthday":"1990-05-01"}`,
			`{"id":"u-3","last_seen":"2026-01-05T10:00:00Z","birthday":"1991-07-04"}`,
			`{"id":"u-4"}`,
		} {
			h.call("POST", "/v1/users", body).want(201)
		}
		h.call("POST", "/v1/users/aggregate", `{"group_by":["birthday"]}`).want(200)
		for _, c := range cases {
			r := h.call("GET", c.path, "").want(200)
			if got := canon(t, r.at()); got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.path, got, c.want)
			}
		}
	})
}

package client

import (
	"context"
	"encoding/json"
)

// AggregateParams ask for totals (docs/api.md, Totals). They travel as
// the JSON body of GET /v1/<plural>/aggregate, as ListParams do.
type AggregateParams struct {
	// GroupBy are up to 3 members; a date or date-time takes a bucket in
	// UTC: "created_at:month" (day, week, month, year).
	GroupBy []string `json:"group_by,omitempty"`
	// Metrics are "count" (the default), "sum:m", "avg:m", "min:m", "max:m".
	Metrics []string `json:"metrics,omitempty"`
	Filter  Filter   `json:"filter,omitempty"`
	Q       string   `json:"q,omitempty"` // full-text search, where the resource has searchable members
	// OrderBy names groups or metrics as answered ("-count"); the groups
	// break ties.
	OrderBy string `json:"order_by,omitempty"`
	Limit   int    `json:"limit,omitempty"` // groups answered: 1 to 1000; 100 when 0
}

// Aggregate is the answer: the groups, and whether more exist than Limit.
type Aggregate struct {
	Groups    []AggregateGroup `json:"groups"`
	Truncated bool             `json:"truncated"`
}

// AggregateGroup is one group: its key (members by name, or
// "member:bucket" as the bucket's first day, YYYY-MM-DD; nil for null)
// and its metrics by name (count, sum_quantity; nil for null).
type AggregateGroup struct {
	Key     map[string]any
	Metrics map[string]any
}

// UnmarshalJSON reads a group: key, and every other member a metric.
func (g *AggregateGroup) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	g.Metrics = map[string]any{}
	for name, raw := range all {
		var v any
		if name == "key" {
			if err := json.Unmarshal(raw, &g.Key); err != nil {
				return err
			}
			continue
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		g.Metrics[name] = v
	}
	return nil
}

// Count is the group's count metric (0 when not asked).
func (g AggregateGroup) Count() int64 {
	n, _ := g.Metrics["count"].(float64)
	return int64(n)
}

// Aggregate sends GET /v1/<plural>/aggregate: the totals of the records
// of plural (e.g. "returns") that p's filter and q match.
func (c *Client) Aggregate(ctx context.Context, plural string, p *AggregateParams, opts ...RequestOption) (*Aggregate, error) {
	k := call{method: "GET", path: "/v1/" + plural + "/aggregate"}
	if p != nil {
		k.body = p
	}
	return send[Aggregate](ctx, c, k, opts)
}

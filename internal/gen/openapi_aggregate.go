package gen

import (
	"slices"
	"strings"

	"records/internal/query"
	"records/internal/spec"
)

// The document's part of search and totals (DESIGN §16): q on the lists
// of searchable resources, and each resource's aggregate route.

// Searchable tells whether full-text search looks in any member.
func (r *resourceView) Searchable() bool {
	return slices.ContainsFunc(r.Fields, func(f *fieldView) bool { return f.Search != "" })
}

// searchedMembers lists the members search looks in, for descriptions.
func searchedMembers(r *resourceView) string {
	var names []string
	for _, f := range r.Fields {
		if f.Search != "" {
			names = append(names, "`"+f.Member+"`")
		}
	}
	return strings.Join(names, ", ")
}

// qParameter is the q of a searchable resource's lists and aggregates.
func qParameter(r *resourceView) *obj {
	return newObj("name", query.ParamQ, "in", "query", "schema", newObj("type", "string", "maxLength", query.MaxQ),
		"description", "Full-text search of "+searchedMembers(r)+": words (all must match), \"quoted phrases\", -excluded words, "+
			"or between words. Without order_by the best matches come first (order_by=-_rank): by relevance tier — "+
			"records the whole query matches within the members of the heaviest weight first, then within those of the "+
			"next weights, the rest last — and by id within a tier; the same order on both databases.")
}

// aggregateParameters are the parameters every aggregate takes, set in
// the document's parameters.
func aggregateParameters(params *obj) {
	params.set("GroupByParam", queryParam(query.ParamGroupBy,
		"Up to 3 members separated by commas; a date or date-time member takes a bucket in UTC: member:day, :week, :month or :year.",
		newObj("type", "string")))
	params.set("MetricsParam", queryParam(query.ParamMetrics, "count, sum:member, avg:member, min:member, max:member, separated by commas (default count). "+
		"A sum of whole numbers is exact, of numbers 15 significant digits; avg is rounded to 6 decimal places; the same on both databases.", newObj("type", "string")))
	params.set("AggregateOrderByParam", queryParam("order_by",
		"Groups or metrics as answered (status, -count, -sum_quantity), separated by commas; the groups break ties.", newObj("type", "string")))
	params.set("AggregateLimitParam", queryParam("limit", "Groups answered: 1 to 1000, default 100; truncated says whether more exist.",
		newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit, "default", spec.DefaultLimit)))
}

// addAggregatePaths puts GET /v1/<plural>/aggregate in paths for every
// resource, and POST where spec.AggregatePosts names it.
func addAggregatePaths(m *apiModel, put putOperation) {
	for _, r := range m.Resources {
		path := "/v1/" + r.Plural + "/aggregate"
		params := []any{paramRef("GroupBy"), paramRef("Metrics"), paramRef(r.Type + "Filter"), paramRef("AggregateOrderBy"), paramRef("AggregateLimit")}
		if r.Searchable() {
			params = append(params, paramRef(r.Type+"Search"))
		}
		op := func(id string) *obj {
			// The intro's Totals describes every aggregate, once.
			o := newObj("operationId", id, "tags", []any{r.Type}, "summary", "Totals of "+r.Plural,
				"parameters", params,
				"responses", withErrors(newObj("200", jsonAnswer("The groups.", ref("Aggregate"))), 400, 401, 403, 429, 500, 503))
			return o
		}
		put("GET", path, op("aggregate"+r.Type))
		if slices.Contains(spec.AggregatePosts, r.Plural) {
			o := op("aggregate" + r.Type + "Post")
			o.set("requestBody", newObj("content", newObj("application/json", newObj("schema", ref("AggregateRequest")))))
			put("POST", path, o)
		}
	}
}

// addAggregateSchemas defines the aggregate's answer and body.
func addAggregateSchemas(c *catalog) {
	// group_by, metrics and order_by take a comma-separated list or an
	// array; each form is named, so that generators need not invent names.
	c.define("AggregateNameText", newObj("type", "string", "description", "Names, comma-separated."))
	c.define("AggregateNameList", newObj("type", "array", "items", newObj("type", "string")))
	c.define("AggregateNames", newObj("oneOf", []any{ref("AggregateNameText"), ref("AggregateNameList")}))
	names := ref("AggregateNames")
	c.define("AggregateRequest", newObj("type", "object", "properties", newObj(
		"group_by", names, "metrics", names, "filter", newObj("type", "object"), "q", newObj("type", "string", "maxLength", query.MaxQ),
		"order_by", names, "limit", newObj("type", "integer", "minimum", 1, "maximum", spec.MaxLimit)),
		"additionalProperties", false))
	c.define("AggregateGroup", newObj("type", "object",
		"properties", newObj("key", newObj("type", "object", "description", "The group's members (or member:bucket, the bucket's first day as YYYY-MM-DD), null where the member is null.")),
		"required", []any{"key"},
		"additionalProperties", ref("AggregateMetric")))
	// A metric is named, not written in place, so that no client generator
	// has to invent a name for it. It states no type: a number, a string or
	// null, as a list of types or a oneOf with null, is more than
	// oapi-codegen v2 can map to Go (it refuses the one, and writes code
	// that does not build for the other).
	c.define("AggregateMetric", newObj("description", "A metric, named as answered: count, sum_quantity, avg_price, min_created_at. "+
		"A number (count, sum, avg; min and max of numbers), a string (min and max of text, dates and date-times), or null over no values."))
	c.define("Aggregate", newObj("type", "object", "properties", newObj(
		"groups", newObj("type", "array", "items", ref("AggregateGroup")),
		"truncated", newObj("type", "boolean", "description", "More groups exist than limit.")),
		"required", []any{"groups", "truncated"}, "additionalProperties", false))
}

package query

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"records/internal/spec"
	"records/internal/suggest"
	"records/internal/wire"
)

// The parameters of an aggregate (DESIGN §16), beyond filter, q and limit.
const (
	ParamGroupBy = "group_by"
	ParamMetrics = "metrics"
)

// AggregateParams are the parameters an aggregate takes.
var AggregateParams = []string{ParamGroupBy, ParamMetrics, ParamFilter, ParamQ, ParamOrderBy, ParamLimit}

// MaxGroupBy bounds the members an aggregate groups by; MaxMetrics its
// metrics.
const (
	MaxGroupBy = 3
	MaxMetrics = 16
)

// Buckets are the spans a date or date-time member may be grouped by, in UTC.
var Buckets = []string{"day", "week", "month", "year"}

// Group is one key of an aggregate: a member, and for a date or date-time
// a bucket ("" for none).
type Group struct {
	Col    *Column
	Bucket string
	Name   string // as answered: the member, or member:bucket
}

// Metric is one figure of each group: count, or sum, avg, min or max of a
// member.
type Metric struct {
	Fn   string // count, sum, avg, min, max
	Col  *Column
	Name string // as answered: count, sum_quantity
}

// Aggregate is a parsed aggregate request.
type Aggregate struct {
	Groups  []Group
	Metrics []Metric
	Filter  *Filter
	// Order are the keys of the answer's order: a group or a metric by
	// its index in Groups, then Metrics.
	Order []AggKey
	Limit int
}

// AggKey is one key of an aggregate's order: the i-th of the answer's
// columns (the groups, then the metrics).
type AggKey struct {
	I    int
	Desc bool
}

// ParseAggregate reads an aggregate's parameters from the body's members
// and the query string. Every problem is reported at once, naming its
// parameter as the request wrote it: group_by[1], metrics[0].
func ParseAggregate(members []wire.Member, query url.Values, l *List) (*Aggregate, error) {
	p := ReadParams(members, query, AggregateParams)
	a := &Aggregate{Limit: p.Limit()}
	if v, ok := p.Values[ParamGroupBy]; ok {
		for i, s := range listOf(p, ParamGroupBy, v) {
			if g, ok := parseGroup(p, fmt.Sprintf("%s[%d]", ParamGroupBy, i), s, l.Columns); ok {
				a.Groups = append(a.Groups, g)
			}
		}
		if n := len(a.Groups); n > MaxGroupBy {
			p.Fail(ParamGroupBy, "groups by at most %d members, not %d", MaxGroupBy, n)
		}
	}
	metrics := []string{"count"}
	if v, ok := p.Values[ParamMetrics]; ok {
		metrics = listOf(p, ParamMetrics, v)
		switch {
		case len(metrics) > MaxMetrics:
			p.Fail(ParamMetrics, "at most %d metrics", MaxMetrics)
		case len(metrics) == 0 && len(p.Errs) == 0:
			p.Fail(ParamMetrics, "names no metric: name count, sum:m, avg:m, min:m or max:m, or leave metrics out for count")
		}
	}
	for i, s := range metrics {
		if m, ok := parseMetric(p, fmt.Sprintf("%s[%d]", ParamMetrics, i), s, l.Columns); ok {
			a.Metrics = append(a.Metrics, m)
		}
	}
	match := parseQ(p, l)
	a.Filter = parseFilters(p, l)
	if match != nil {
		a.Filter = And2(a.Filter, &Filter{Op: SearchOp, Value: match, Search: l.Search})
	}
	if v, ok := p.Values[ParamOrderBy]; ok && len(p.Errs) == 0 {
		a.Order = parseAggOrder(p, v, a)
	}
	seen := map[string]bool{}
	for i, name := range a.names() {
		if seen[name] {
			param := fmt.Sprintf("%s[%d]", ParamGroupBy, i)
			if i >= len(a.Groups) {
				param = fmt.Sprintf("%s[%d]", ParamMetrics, i-len(a.Groups))
			}
			p.Fail(param, "names %q twice", name)
		}
		seen[name] = true
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

// names are the answer's columns: the groups' names, then the metrics'.
func (a *Aggregate) names() []string {
	var out []string
	for _, g := range a.Groups {
		out = append(out, g.Name)
	}
	for _, m := range a.Metrics {
		out = append(out, m.Name)
	}
	return out
}

// listOf reads a parameter that is a JSON array of strings or one string
// of comma-separated items (always so in a query string).
func listOf(p *Params, param string, v Value) []string {
	if !v.Text && wire.Kind(v.Raw) == "an array" {
		items, err := wire.ParseArray(v.Raw)
		if err != nil {
			p.Fail(param, "must be an array of strings or one string of items separated by commas")
			return nil
		}
		out := make([]string, len(items))
		for i, item := range items {
			s, err := wire.Text(item)
			if err != nil {
				p.Fail(fmt.Sprintf("%s[%d]", param, i), "must be a string")
				return nil
			}
			out[i] = strings.TrimSpace(s)
		}
		return out
	}
	s, err := wire.Text(v.Raw)
	if err != nil {
		p.Fail(param, "must be an array of strings or one string of items separated by commas")
		return nil
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// column finds a member an aggregate may name, or notes why not.
func aggColumn(p *Params, param, name string, cols Columns) *Column {
	if name == "id" {
		return IDColumn
	}
	col := cols[name]
	if col == nil {
		p.Fail(param, "no member %q%s", name, suggest.Hint(name, cols.names()))
	}
	return col
}

func parseGroup(p *Params, param, s string, cols Columns) (Group, bool) {
	name, bucket, bucketed := strings.Cut(s, ":")
	col := aggColumn(p, param, name, cols)
	if col == nil {
		return Group{}, false
	}
	g := Group{Col: col, Bucket: bucket, Name: s}
	dated := col.Type == spec.Date || col.Type == spec.DateTime
	switch {
	case bucketed && !dated:
		p.Fail(param, "%s is not a date or date-time: only those take a bucket", name)
	case bucketed && !slices.Contains(Buckets, bucket):
		p.Fail(param, "no bucket %q; valid: %s", bucket, strings.Join(Buckets, ", "))
	case col.Type == spec.DateTime && !bucketed:
		p.Fail(param, "a date-time groups by a bucket: %s:day, %s:week, %s:month or %s:year", name, name, name, name)
	case col.Type == spec.Date && !bucketed:
		g.Bucket = "day"
	default:
		return g, true
	}
	return g, !bucketed && col.Type == spec.Date
}

func parseMetric(p *Params, param, s string, cols Columns) (Metric, bool) {
	if s == "count" {
		return Metric{Fn: "count", Name: "count"}, true
	}
	fn, name, ok := strings.Cut(s, ":")
	fns := []string{"sum", "avg", "min", "max"}
	if !ok || !slices.Contains(fns, fn) {
		p.Fail(param, "must be count, or sum:, avg:, min: or max: and a member (sum:quantity)")
		return Metric{}, false
	}
	col := aggColumn(p, param, name, cols)
	if col == nil {
		return Metric{}, false
	}
	number := col.Type == spec.Integer || col.Type == spec.Number
	switch {
	case (fn == "sum" || fn == "avg") && !number:
		p.Fail(param, "%s takes a number member; %s is %s", fn, name, col.Type)
	case !number && col.Type != spec.Date && col.Type != spec.DateTime && col.Type != spec.String:
		p.Fail(param, "%s takes a number, date, date-time or text member; %s is %s", fn, name, col.Type)
	default:
		return Metric{Fn: fn, Col: col, Name: fn + "_" + name}, true
	}
	return Metric{}, false
}

// parseAggOrder reads order_by: names of the answer's groups or metrics,
// each with - for descending.
func parseAggOrder(p *Params, v Value, a *Aggregate) []AggKey {
	names := a.names()
	var keys []AggKey
	for i, s := range listOf(p, ParamOrderBy, v) {
		name, desc := strings.CutPrefix(s, "-")
		j := slices.Index(names, name)
		if j < 0 {
			p.Fail(ParamOrderBy, "%q (key %d) is no group or metric of the answer; valid: %s", name, i, strings.Join(names, ", "))
			continue
		}
		keys = append(keys, AggKey{I: j, Desc: desc})
	}
	return keys
}

// SQL writes the aggregate's statement over table, where scope is the
// rows it may read (the first condition) with its parameters; it reads at
// most Limit+1 groups, so the answer can tell it was truncated.
func (a *Aggregate) SQL(d Dialect, table, scope string, args []any) (string, []any) {
	s := &sqlText{d: d, args: args}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, g := range a.Groups {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(groupExpr(d, g))
	}
	for i, m := range a.Metrics {
		for j, col := range m.Columns(d) {
			if i > 0 || j > 0 || len(a.Groups) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(col)
		}
	}
	b.WriteString(" FROM " + spec.Ident(table) + " WHERE " + scope)
	if a.Filter != nil {
		b.WriteString(" AND ")
		s.b.Reset()
		s.filter(a.Filter, false)
		b.WriteString(s.b.String())
	}
	if len(a.Groups) > 0 {
		b.WriteString(" GROUP BY ")
		for i := range a.Groups {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(i + 1))
		}
		b.WriteString(" ORDER BY ")
		b.WriteString(a.orderBy(d))
	}
	b.WriteString(" LIMIT " + strconv.Itoa(a.Limit+1))
	return b.String(), s.args
}

// orderBy is the answer's order: order_by's keys, then the groups going
// up; nulls last going up and first going down, as lists sort them.
func (a *Aggregate) orderBy(d Dialect) string {
	keys := slices.Clone(a.Order)
	for i := range a.Groups {
		if !slices.ContainsFunc(keys, func(k AggKey) bool { return k.I == i }) {
			keys = append(keys, AggKey{I: i})
		}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		key := strconv.Itoa(k.I + 1) // a group, by its place
		if k.I >= len(a.Groups) {
			key = a.Metrics[k.I-len(a.Groups)].order(d)
		}
		parts[i] = key + " ASC NULLS LAST"
		if k.Desc {
			parts[i] = key + " DESC NULLS FIRST"
		}
	}
	return strings.Join(parts, ", ")
}

// groupExpr is a group's key: the member, or the first day of its bucket
// in UTC as YYYY-MM-DD text.
func groupExpr(d Dialect, g Group) string {
	c := g.Col.quoted()
	if g.Bucket == "" {
		return c
	}
	if d == Postgres {
		ts := c + "::timestamp"
		if g.Col.Type == spec.DateTime {
			ts = "(" + c + " AT TIME ZONE 'UTC')"
		}
		return "to_char(date_trunc('" + g.Bucket + "', " + ts + "), 'YYYY-MM-DD')"
	}
	switch g.Bucket {
	case "week": // the Monday on or before
		return "date(" + c + ", '-6 days', 'weekday 1')"
	case "month":
		return "strftime('%Y-%m-01', " + c + ")"
	case "year":
		return "strftime('%Y-01-01', " + c + ")"
	}
	return "date(" + c + ")"
}

// AvgDigits are the decimal places an average is rounded to, and
// SumDigits the significant digits of a sum of a number member: on both
// databases alike, so that they answer the same figure.
const (
	AvgDigits = 6
	SumDigits = 15
)

// Columns are the expressions a metric's statement reads; the service
// computes the figure from them (Metric.AppendFigure), so that both
// databases answer it alike:
//
//   - count: COUNT(*);
//   - a sum of whole numbers: exact on both — PostgreSQL's sum (numeric),
//     SQLite's as the sums of each value's high and low 32 bits, which no
//     number of records can make overflow (SQLite's own sum fails past
//     64 bits);
//   - a sum of numbers: PostgreSQL's exact sum of their numeric values,
//     SQLite's in double precision (compensated), both answered to
//     SumDigits significant digits;
//   - an average: the sum above and the count of values, divided by the
//     service and rounded to AvgDigits decimal places;
//   - min and max: the database's.
func (m Metric) Columns(d Dialect) []string {
	if m.Fn == "count" {
		return []string{"COUNT(*)"}
	}
	c := m.Col.quoted()
	if m.Fn != "sum" && m.Fn != "avg" {
		return []string{m.Fn + "(" + c + ")"}
	}
	var cols []string
	switch integer := m.Col.Type == spec.Integer; {
	case d == Postgres && integer:
		cols = []string{"sum(" + c + ")"}
	case d == Postgres:
		cols = []string{"sum(" + c + "::numeric)"}
	case integer:
		cols = []string{"sum(" + c + " >> 32)", "sum(" + c + " & 4294967295)"}
	default:
		cols = []string{"sum(CAST(" + c + " AS REAL))"}
	}
	if m.Fn == "avg" {
		cols = append(cols, "count("+c+")")
	}
	return cols
}

// Widths are the columns each metric's Columns read, in order: where a
// row's figures are, read once a statement rather than once a row.
func (a *Aggregate) Widths(d Dialect) []int {
	out := make([]int, len(a.Metrics))
	for i, m := range a.Metrics {
		out[i] = len(m.Columns(d))
	}
	return out
}

// order is the expression an order by the metric sorts by: its figure, or
// near it (an average unrounded), never failing where the figure does not.
func (m Metric) order(d Dialect) string {
	cols := m.Columns(d)
	if m.Fn != "sum" && m.Fn != "avg" {
		return cols[0]
	}
	c := m.Col.quoted()
	switch {
	case d == Postgres && m.Fn == "avg":
		return "avg(" + c + "::numeric)"
	case d == Postgres:
		return cols[0]
	case m.Col.Type == spec.Integer && m.Fn == "sum":
		return "(" + cols[0] + " * 4294967296.0 + " + cols[1] + ")"
	case m.Col.Type == spec.Integer:
		return "avg(" + c + ")"
	}
	return m.Fn + "(CAST(" + c + " AS REAL))"
}

package query

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

var testList = &List{
	Columns: Columns{
		"id":        {Member: "id", Name: "id", Type: spec.String, Parse: conv(wire.ID)},
		"status":    {Member: "status", Name: "status", Type: spec.String, Sortable: true, Parse: conv(wire.String)},
		"price":     {Member: "price", Name: "price", Type: spec.Number, Parse: conv(wire.Float64)},
		"qty":       {Member: "qty", Name: "qty", Type: spec.Integer, Parse: conv(wire.Int64)},
		"paid":      {Member: "paid", Name: "paid", Type: spec.Boolean, Parse: conv(wire.Bool)},
		"due":       {Member: "due", Name: "due", Type: spec.Date, Parse: conv(wire.Date)},
		"createdAt": {Member: "createdAt", Name: "created_at", Type: spec.DateTime, Sortable: true, Parse: conv(wire.DateTime)},
		"sso_id":    {Member: "sso_id", Name: "sso_id", Type: spec.String, Parse: conv(wire.String)},
	},
	Members: []string{"id", "status", "price", "qty", "paid", "due", "createdAt", "sso_id", "lines"},
	Edges:   []string{"lines", "customer"},
	Extra:   []string{"sso_id"},
}

func conv[T any](f func([]byte) (T, error)) func([]byte) (any, error) {
	return func(v []byte) (any, error) { return f(v) }
}

func parse(t *testing.T, body, query string) (*Request, error) {
	t.Helper()
	members, err := wire.ParseObject([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	return ParseRequest(members, q, testList)
}

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
	slices.Sort(out)
	return out
}

// Filters compile to SQL whose every value is a parameter; negation
// treats null as a value.
func TestFiltersCompile(t *testing.T) {
	cases := []struct {
		name, body, query string
		sql               string
		args              int
	}{
		{"exact", `{"filter":{"status":"open"}}`, "", `"status" = ?`, 1},
		{"exact null", `{"filter":{"status":null}}`, "", `"status" IS NULL`, 0},
		{"ne matches null", `{"filter":{"status":{"ne":"closed"}}}`, "", `("status" IS NULL OR NOT "status" = ?)`, 1},
		{"ne null", `{"filter":{"status":{"ne":null}}}`, "", `"status" IS NOT NULL`, 0},
		{"range", `{"filter":{"price":{"gte":10,"lt":"20"}}}`, "", `("price" >= ? AND "price" < ?)`, 2},
		{"in pads to a power of two", `{"filter":{"qty":{"in":[1,2,3]}}}`, "", `"qty" IN (?, ?, ?, ?)`, 4},
		{"in with null", `{"filter":{"qty":{"in":[1,null]}}}`, "", `("qty" IN (?) OR "qty" IS NULL)`, 1},
		{"nin matches null", `{"filter":{"qty":{"nin":[1]}}}`, "", `("qty" IS NULL OR NOT "qty" IN (?))`, 1},
		{"nin with null", `{"filter":{"qty":{"nin":[1,null]}}}`, "", `("qty" IS NOT NULL AND NOT "qty" IN (?))`, 1},
		{"empty in", `{"filter":{"qty":{"in":[]}}}`, "", `1=0`, 0},
		{"contains", `{"filter":{"status":{"contains":"Op_"}}}`, "", `instr(lower("status"), ?) > 0`, 1},
		{"prefix", `{"filter":{"status":{"prefix":"op"}}}`, "", `substr("status", 1, ?) = ?`, 2},
		{"is_null", `{"filter":{"due":{"is_null":false}}}`, "", `"due" IS NOT NULL`, 0},
		{"or", `{"filter":{"or":[{"status":"a"},{"qty":{"gt":1}}]}}`, "", `("status" = ? OR "qty" > ?)`, 2},
		{"not pushes down", `{"filter":{"not":{"or":[{"status":"a"},{"qty":{"gt":1}}]}}}`, "",
			`(("status" IS NULL OR NOT "status" = ?) AND ("qty" IS NULL OR NOT "qty" > ?))`, 2},
		{"double not", `{"filter":{"not":{"not":{"paid":true}}}}`, "", `"paid" = ?`, 1},
		{"empty and", `{"filter":{"and":[]}}`, "", `1=1`, 0},
		{"not of empty or", `{"filter":{"not":{"or":[]}}}`, "", `1=1`, 0},
		{"query string", "", "filter[status][ne]=closed&filter[qty][in]=1,2", `("qty" IN (?, ?) AND ("status" IS NULL OR NOT "status" = ?))`, 3},
		{"query string: or", "", "filter[or][0][status]=a&filter[or][1][qty][gt]=1", `("status" = ? OR "qty" > ?)`, 2},
		{"query string: not pushes down", "", "filter[not][or][0][status]=a&filter[not][or][1][qty][gt]=1",
			`(("status" IS NULL OR NOT "status" = ?) AND ("qty" IS NULL OR NOT "qty" > ?))`, 2},
		{"query string: items in their order", "", "filter[or][10][qty]=3&filter[or][2][status]=a&filter[or][9][and][0][paid]=true",
			`("status" = ? OR ("paid" = ?) OR "qty" = ?)`, 3},
		{"query string: in numbered", "", "filter[status][in][0]=a,b&filter[status][in][1]=c", `"status" IN (?, ?)`, 2},
		{"query string: an exact value and an operator", "", "filter[qty]=1&filter[qty][lt]=5", `("qty" = ? AND "qty" < ?)`, 2},
		{"the body's filter wins over the query string's", `{"filter":{"paid":true}}`, "filter[or][0][qty]=1&filter[nope]=2", `"paid" = ?`, 1},
		{"extra member", `{"sso_id":"s1"}`, "", `"sso_id" = ?`, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := parse(t, c.body, c.query)
			if err != nil {
				t.Fatal(err)
			}
			sql, args := Where(SQLite, r.Filter)
			if sql != c.sql || len(args) != c.args || strings.Count(sql, "?") != len(args) {
				t.Fatalf("got %s %v\nwant %s (%d args)", sql, args, c.sql, c.args)
			}
		})
	}
}

func TestContainsFoldsLettersAndEscapesWildcards(t *testing.T) {
	r, err := parse(t, `{"filter":{"status":{"contains":"A%b_\\"}}}`, "")
	if err != nil {
		t.Fatal(err)
	}
	sql, args := Where(Postgres, r.Filter)
	if !strings.HasPrefix(sql, `translate("status", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE ?`) {
		t.Fatalf("PostgreSQL: %s", sql)
	}
	if args[0] != `%a\%b\_\\%` {
		t.Fatalf("pattern %q", args[0])
	}
	if sql, _ := Where(Postgres, mustFilter(t, `{"filter":{"status":{"prefix":"x"}}}`)); sql != `starts_with("status", ?)` {
		t.Fatalf("PostgreSQL prefix: %s", sql)
	}
}

func mustFilter(t *testing.T, body string) *Filter {
	t.Helper()
	r, err := parse(t, body, "")
	if err != nil {
		t.Fatal(err)
	}
	return r.Filter
}

// Every bad filter, order, field, expand, count and cursor parameter is a
// 400 naming the member at fault; several faults are named together.
func TestBadParameters(t *testing.T) {
	deep := `{"filter":` + strings.Repeat(`{"not":`, MaxDepth+1) + `{"status":"a"}` + strings.Repeat("}", MaxDepth+1) + "}"
	many := `{"filter":{"or":[` + strings.TrimSuffix(strings.Repeat(`{"qty":1},`, MaxTerms+1), ",") + `]}}`
	cases := []struct {
		name, body, query string
		bad               []string
	}{
		{"unknown member", `{"filter":{"nope":1}}`, "", []string{"filter.nope"}},
		{"unknown operator", `{"filter":{"price":{"greater":1}}}`, "", []string{"filter.price.greater"}},
		{"gt on a boolean", `{"filter":{"paid":{"gt":true}}}`, "", []string{"filter.paid.gt"}},
		{"contains on a number", `{"filter":{"price":{"contains":"1"}}}`, "", []string{"filter.price.contains"}},
		{"a bad number", `{"filter":{"price":{"gte":"ten"}}}`, "", []string{"filter.price.gte"}},
		{"a bad date", `{"filter":{"due":{"lt":"2026-13-01"}}}`, "", []string{"filter.due.lt"}},
		{"gt null", `{"filter":{"qty":{"gt":null}}}`, "", []string{"filter.qty.gt"}},
		{"in not an array", `{"filter":{"qty":{"in":1}}}`, "", []string{"filter.qty.in"}},
		{"a bad item of in", `{"filter":{"qty":{"in":[1,"x"]}}}`, "", []string{"filter.qty.in[1]"}},
		{"is_null not a boolean", `{"filter":{"qty":{"is_null":"maybe"}}}`, "", []string{"filter.qty.is_null"}},
		{"or not an array", `{"filter":{"or":{"qty":1}}}`, "", []string{"filter.or"}},
		{"inside or", `{"filter":{"or":[{"qty":1},{"nope":2}]}}`, "", []string{"filter.or[1].nope"}},
		{"too deep", deep, "", []string{"filter" + strings.Repeat(".not", MaxDepth+1)}},
		{"too many operators", many, "", []string{"filter.or[100].qty"}},
		{"filter not an object", `{"filter":[1]}`, "", []string{"filter"}},
		{"no operator", `{"filter":{"qty":{}}}`, "", []string{"filter.qty"}},
		{"a member given twice", `{"filter":{"qty":1,"qty":2}}`, "", []string{"filter.qty"}},
		{"an operator given twice", `{"filter":{"qty":{"eq":1,"eq":2}}}`, "", []string{"filter.qty.eq"}},
		{"a member given twice inside or", `{"filter":{"or":[{"qty":1,"qty":2}]}}`, "", []string{"filter.or[0].qty"}},
		{"query: unknown operator", "", "filter[qty][over]=1", []string{"filter.qty.over"}},
		{"query: or of a value", "", "filter[or]=x", []string{"filter.or"}},
		{"query: or not numbered", "", "filter[or][x][status]=a", []string{"filter.or"}},
		{"query: an index with a leading zero", "", "filter[or][01][status]=a", []string{"filter.or"}},
		{"query: an index too large", "", "filter[or][1000][status]=a", []string{"filter.or"}},
		{"query: an item of or that is a value", "", "filter[or][0]=x", []string{"filter.or[0]"}},
		{"query: inside or", "", "filter[or][0][status]=a&filter[or][3][nope]=1", []string{"filter.or[3].nope"}},
		{"query: inside not", "", "filter[not][qty][over]=1", []string{"filter.not.qty.over"}},
		{"query: too deep", "", "filter" + strings.Repeat("[not]", MaxDepth+1) + "[status]=a", []string{"filter" + strings.Repeat(".not", MaxDepth+1)}},
		{"query: an operator holding more", "", "filter[qty][gt][0]=1", []string{"filter.qty.gt"}},
		{"query: a numbered list item holding more", "", "filter[qty][in][0][x]=1", []string{"filter.qty.in[0]"}},
		{"query: a list both ways", "", "filter[qty][in]=1&filter[qty][in][0]=2", []string{"filter.qty.in"}},
		{"query: a bad numbered list item", "", "filter[qty][in][0]=1&filter[qty][in][4]=x", []string{"filter.qty.in[4]"}},
		{"query: empty brackets", "", "filter[or][][status]=a", []string{"filter.or..status"}},
		{"query: a bad list item", "", "filter[qty][in]=1,x", []string{"filter.qty.in[1]"}},
		{"order: unknown", `{"order_by":"nope"}`, "", []string{"order_by"}},
		{"order: twice", `{"order_by":"status,-status"}`, "", []string{"order_by"}},
		{"order: after the id", `{"order_by":"id,status"}`, "", []string{"order_by"}},
		{"order: empty key", "", "order_by=status,,qty", []string{"order_by"}},
		{"cursor with an offset", `{"cursor":"x","offset":5}`, "", []string{"cursor"}},
		{"empty cursor", "", "cursor=", []string{"cursor"}},
		{"count", "", "count=maybe", []string{"count"}},
		{"fields", "", "fields=id,nope", []string{"fields"}},
		{"fields not names", `{"fields":[1]}`, "", []string{"fields"}},
		{"expand", `{"expand":["lines","nope"]}`, "", []string{"expand"}},
		{"together", `{"limit":0,"filter":{"nope":1},"order_by":"x"}`, "", []string{"filter.nope", "limit", "order_by"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.body, c.query)
			if got := faulty(t, err); !slices.Equal(got, c.bad) {
				t.Fatalf("members at fault %v, want %v (%v)", got, c.bad, err)
			}
		})
	}
}

func TestParseOrder(t *testing.T) {
	cases := []struct {
		text string
		desc bool
		want string
	}{
		{"", false, `"id" ASC`},
		{"", true, `"id" DESC`},
		{"status", false, `"status" ASC NULLS LAST, "id" ASC`},
		{"-createdAt", false, `"created_at" DESC NULLS FIRST, "id" DESC`},
		{"status, -qty", false, `"status" ASC NULLS LAST, "qty" DESC NULLS FIRST, "id" DESC`},
		{"status,id", true, `"status" DESC NULLS FIRST, "id" DESC`},
		{"status,-id", false, `"status" ASC NULLS LAST, "id" DESC`},
	}
	for _, c := range cases {
		keys, err := ParseOrder(c.text, c.desc, testList.Columns)
		if err != nil {
			t.Fatal(err)
		}
		if got := orderBy(keys); got != c.want {
			t.Errorf("%q desc=%v: %s, want %s", c.text, c.desc, got, c.want)
		}
	}
}

func TestFieldsAndExpand(t *testing.T) {
	r, err := parse(t, `{"fields":"status, price,status","expand":["lines"]}`, "count=estimated")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Fields, []string{"status", "price"}) || !slices.Equal(r.Expand, []string{"lines"}) || r.Count != Estimated {
		t.Fatalf("%+v", r)
	}
	r, _ = parse(t, `{}`, "")
	if r.Fields != nil || r.Limit != spec.DefaultLimit {
		t.Fatalf("defaults: %+v", r)
	}
}

// A cursor reads back only for the list it was made for.
func TestCursors(t *testing.T) {
	keys, _ := ParseOrder("-createdAt,qty,status", false, testList.Columns)
	at := time.Date(2026, 11, 23, 10, 0, 0, 123456000, time.UTC)
	pos := Position{Values: []any{at, int64(-1 << 62), nil}, ID: "r-9"}
	c := NewCursors([]byte("key"))
	b := Binding{Resource: "returns", Team: 1, Shape: "filter"}
	token := c.Encode(b, keys, pos)
	got, err := c.Decode(token, b, keys)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != pos.ID || !got.Values[0].(time.Time).Equal(at) || got.Values[1] != pos.Values[1] || got.Values[2] != nil {
		t.Fatalf("read back %+v, want %+v", got, pos)
	}
	other := keys[:1:1]
	other = append(other, keys[len(keys)-1])
	for name, try := range map[string]func() error{
		"another resource": func() error { _, err := c.Decode(token, Binding{"cases", 1, "filter"}, keys); return err },
		"another team":     func() error { _, err := c.Decode(token, Binding{"returns", 2, "filter"}, keys); return err },
		"another filter":   func() error { _, err := c.Decode(token, Binding{"returns", 1, "other"}, keys); return err },
		"another order":    func() error { _, err := c.Decode(token, b, other); return err },
		"another key":      func() error { _, err := NewCursors([]byte("k2")).Decode(token, b, keys); return err },
		"altered":          func() error { _, err := c.Decode("x"+token[1:], b, keys); return err },
		"truncated":        func() error { _, err := c.Decode(token[:len(token)-3], b, keys); return err },
		"garbage":          func() error { _, err := c.Decode("%%%", b, keys); return err },
	} {
		if err := try(); !errors.Is(err, ErrCursor) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A page by one member walks the index in two phases; a null position
// skips the values going up.
func TestPhases(t *testing.T) {
	status := testList.Columns["status"]
	id := Key{Col: IDColumn}
	cases := []struct {
		name  string
		page  Page
		conds []string
	}{
		{"by id", Page{Keys: []Key{id}}, []string{""}},
		{"by id, after", Page{Keys: []Key{id}, After: &Position{ID: "x"}}, []string{`"id" > ?`}},
		{"up", Page{Keys: []Key{{Col: status}, id}}, []string{`"status" IS NOT NULL`, `"status" IS NULL`}},
		{"up, after a value", Page{Keys: []Key{{Col: status}, id}, After: &Position{Values: []any{"a"}, ID: "x"}},
			[]string{`("status", "id") > (?, ?)`, `"status" IS NULL`}},
		{"up, after a null", Page{Keys: []Key{{Col: status}, id}, After: &Position{Values: []any{nil}, ID: "x"}},
			[]string{`"status" IS NULL AND "id" > ?`}},
		{"down", Page{Keys: []Key{{Col: status, Desc: true}, {Col: IDColumn, Desc: true}}}, []string{`"status" IS NULL`, `"status" IS NOT NULL`}},
		{"down, after a null", Page{Keys: []Key{{Col: status, Desc: true}, {Col: IDColumn, Desc: true}}, After: &Position{Values: []any{nil}, ID: "x"}},
			[]string{`"status" IS NULL AND "id" < ?`, `"status" IS NOT NULL`}},
		{"down, after a value", Page{Keys: []Key{{Col: status, Desc: true}, {Col: IDColumn, Desc: true}}, After: &Position{Values: []any{"a"}, ID: "x"}},
			[]string{`("status", "id") < (?, ?)`}},
		{"mixed", Page{Keys: []Key{{Col: status}, {Col: IDColumn, Desc: true}}, After: &Position{Values: []any{"a"}, ID: "x"}},
			[]string{`((("status" > ? OR "status" IS NULL)) OR ("status" = ? AND "id" < ?))`}},
		{"offset", Page{Keys: []Key{{Col: status}, id}, Offset: 5}, []string{""}},
	}
	for _, c := range cases {
		var conds []string
		for _, ph := range c.page.Phases() {
			conds = append(conds, ph.Cond)
			if strings.Count(ph.Cond, "?") != len(ph.Args) {
				t.Errorf("%s: %d placeholders, %d args", c.name, strings.Count(ph.Cond, "?"), len(ph.Args))
			}
		}
		if !slices.Equal(conds, c.conds) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, conds, c.conds)
		}
	}
}

// No two filters share a shape, whatever their values hold: a cursor made
// for one is refused for the other.
func TestShapesAreUnambiguous(t *testing.T) {
	shape := func(body string) string {
		where, args := Where(SQLite, mustFilter(t, body))
		return (&Page{Where: where, Args: args}).Shape()
	}
	pairs := [][2]string{
		{`{"filter":{"status":{"nin":["zz|string:zz","zz"]}}}`, `{"filter":{"status":{"nin":["zz","zz|string:zz"]}}}`},
		{`{"filter":{"status":{"nin":["a\\","|b"]}}}`, `{"filter":{"status":{"nin":["a\\|","b"]}}}`},
	}
	for _, p := range pairs {
		if a, b := shape(p[0]), shape(p[1]); a == b {
			t.Errorf("%s and %s share the shape %s", p[0], p[1], a)
		}
	}
	if a, b := shape(`{"filter":{"status":"x"}}`), shape(`{"filter":{"status":"x"}}`); a != b {
		t.Errorf("one filter, two shapes: %s, %s", a, b)
	}
}

// A column is written as an SQL identifier: a double quote in its name is
// doubled, as SQL reads it (Go's quoting would write \", which SQL does
// not undo).
func TestColumnsAreSQLIdentifiers(t *testing.T) {
	col := &Column{Member: "odd", Name: `a"b`, Type: spec.String}
	text, _ := Where(Postgres, &Filter{Op: Eq, Col: col, Value: "x"})
	if want := `"a""b" = ?`; text != want {
		t.Errorf("Where: %s, want %s", text, want)
	}
	if got := orderBy([]Key{{Col: col, Desc: true}}); got != `"a""b" DESC NULLS FIRST` {
		t.Errorf("orderBy: %s", got)
	}
}

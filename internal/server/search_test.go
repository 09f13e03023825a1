package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/migrate"
)

// searchReturns are returns whose words the tests search: stems both
// databases' stemmers agree on, an accent, an email address.
var searchReturns = []string{
	`{"id":"r-1","description":"Customer asked for a refund of the wrong item","rma":"RMA-100","status":"open"}`,
	`{"id":"r-2","description":"Item arrived damaged; refunds requested","issue":"broken screen","status":"open"}`,
	`{"id":"r-3","description":"Wrong item shipped","issue":"refund pending","status":"closed","customerEmail":"ana@example.com"}`,
	`{"id":"r-4","description":"Crème brûlée stains on the box","serial_number":"SN778899","status":"closed"}`,
	`{"id":"r-5","description":"Nothing to see here","issue":"Damaged packaging","status":"open"}`,
}

func seedSearch(h *harness) {
	for _, body := range searchReturns {
		h.call("POST", "/v1/returns", body).want(201)
	}
}

// idsInOrder are the ids of a list answer's records, at path, in order.
func idsInOrder(r *response, path ...any) []string {
	var out []string
	for _, rec := range r.list(path...) {
		out = append(out, rec.(map[string]any)["id"].(string))
	}
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// The same words find the same records on both databases: words, stems,
// phrases, exclusions, or, accents, case, an email address.
func TestSearchFindsTheSameRecordsOnBothDatabases(t *testing.T) {
	cases := []struct{ q, want string }{
		{"refund", "r-1,r-2,r-3"},
		{"REFUNDS", "r-1,r-2,r-3"},
		{"refund -damaged", "r-1,r-3"},
		{`"wrong item"`, "r-1,r-3"},
		{`"item wrong"`, ""},
		{"damaged or stains", "r-2,r-4,r-5"},
		{"creme brulee", "r-4"},
		{"crème", "r-4"},
		{"ana@example.com", "r-3"},
		{"SN778899", "r-4"},
		{"refund wrong shipped", "r-3"},
		{"the refund", "r-1,r-2,r-3"},
		{`refund "wrong item" -shipped`, "r-1"},
		{"nomatchword", ""},
		// Stop words alone, quoted or joined by punctuation, are looked for
		// on neither database; at a phrase's ends they are skipped.
		{`refund it's "the"`, "r-1,r-2,r-3"},
		{`"the refund"`, "r-1,r-2,r-3"},
		{`damaged "or" refund`, "r-2"},
		{`stains:on`, "r-4"},
	}
	each(t, func(t *testing.T, h *harness) {
		seedSearch(h)
		for _, c := range cases {
			r := h.call("GET", "/v1/returns?q="+url.QueryEscape(c.q), "").want(200)
			if got := strings.Join(sorted(idsInOrder(r, "returns")), ","); got != c.want {
				t.Errorf("q=%q: got %q, want %q", c.q, got, c.want)
			}
		}
	})
}

// A phrase is found within one member, never across the end of one and
// the start of the next, on both databases: SQLite's FTS5 matches a
// phrase within a column, and PostgreSQL's search columns keep a gap
// between two members' words. The same words unquoted, or one of them,
// find the record. A stop word inside a phrase is where the engines
// differ: PostgreSQL does not index it, so it stands for any one word
// there (websearch's <2>), where FTS5 looks for that word.
func TestSearchPhrasesStayWithinAMember(t *testing.T) {
	cases := []struct{ q, want, postgres string }{
		{`"zanzibar widget"`, "", ""},
		{`"zanzibar"`, "c-1,c-2,c-3,c-4", ""},
		{`zanzibar widget`, "c-1,c-2,c-3,c-4", ""},
		{`"broken zanzibar"`, "c-1", ""},
		{`"widget arrived"`, "c-1", ""},
		{`"widget of zanzibar"`, "c-3", "c-3,c-4"},
		{`"blue widget" "of zanzibar"`, "c-2", ""},
	}
	each(t, func(t *testing.T, h *harness) {
		for _, body := range []string{
			`{"id":"c-1","caseName":"Broken zanzibar","description":"Widget arrived late"}`,
			`{"id":"c-2","caseName":"Blue widget","description":"of Zanzibar"}`,
			`{"id":"c-3","caseName":"Widget of Zanzibar"}`,
			`{"id":"c-4","description":"A widget in zanzibar"}`,
		} {
			h.call("POST", "/v1/cases", body).want(201)
		}
		for _, c := range cases {
			want := c.want
			if c.postgres != "" && h.db.Dialect == migrate.Postgres {
				want = c.postgres
			}
			r := h.call("GET", "/v1/cases?q="+url.QueryEscape(c.q), "").want(200)
			if got := strings.Join(sorted(idsInOrder(r, "data", "case")), ","); got != want {
				t.Errorf("q=%s: got %q, want %q", c.q, got, want)
			}
		}
	})
}

// Every refusal of q names it.
func TestSearchRefusalsNameQ(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for _, q := range []string{"", "-damaged", "the", "!!! ...", strings.Repeat("a", 257), "a\x00b",
			`"the" -refund`, `it's -damaged`, `don't`, `"of the"`} {
			h.call("GET", "/v1/returns?q="+url.QueryEscape(q), "").problem(400, "invalid_request", "q")
		}
		h.call("GET", "/v1/returns", `{"q":5}`).problem(400, "invalid_request", "q")
		h.call("GET", "/v1/packing_list_items?q=box", "").problem(400, "invalid_request", "q")
		h.call("GET", "/v1/returns?order_by=-_rank", "").problem(400, "invalid_request", "order_by")
	})
}

// Without order_by a search answers best match first, and a cursor walks
// it a record at a time without skipping or repeating one; filter, fields
// and count apply.
func TestSearchRanksAndWalks(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		seedSearch(h)
		for i := range 12 {
			h.call("POST", "/v1/returns", fmt.Sprintf(`{"id":"x-%02d","description":"refund %s","status":"open"}`, i, strings.Repeat("filler ", i))).want(201)
		}
		h.call("POST", "/v1/returns", `{"id":"best","rma":"refund","issue":"refund refund","description":"refund","status":"open"}`).want(201)
		all := h.call("GET", "/v1/returns?q=refund&limit=100", "").want(200)
		first := idsInOrder(all, "returns")
		if len(first) != 16 || first[0] != "best" {
			t.Fatalf("best match first: %v", first)
		}
		if walked := walkSearch(h, "q=refund&limit=2", func(int) {}); !slices.Equal(walked, first) {
			t.Fatalf("walked %v, want %v", walked, first)
		}
		r := h.call("GET", "/v1/returns?q=refund&filter[status]=closed&fields=status&count=exact", "").want(200)
		if got := idsInOrder(r, "returns"); !slices.Equal(got, []string{"r-3"}) {
			t.Fatalf("filtered: %v", got)
		}
		if fmt.Sprint(r.at("paging", "total")) != "1" {
			t.Fatalf("total: %v", r.at("paging", "total"))
		}
		r = h.call("GET", "/v1/returns?q=refund&order_by=id&limit=3", "").want(200)
		if got := idsInOrder(r, "returns"); !slices.Equal(got, []string{"best", "r-1", "r-2"}) {
			t.Fatalf("ordered by id: %v", got)
		}
	})
}

// An event's image is the record, never the search columns kept beside it
// (their words are the record's again), whatever weight class they hold.
func TestEventImagesLeaveTheSearchColumnsOut(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/returns", `{"id":"r-1","rma":"RMA 7","issue":"teal sprocket","description":"bent"}`).want(201)
		h.call("PATCH", "/v1/returns/r-1", `{"issue":"green sprocket"}`).want(200)
		h.call("POST", "/v1/users", `{"id":"u-1","username":"ann","title":"buyer","bio":"likes sprockets"}`).want(201)
		h.call("POST", "/v1/cases", `{"id":"c-1","caseName":"late sprocket"}`).want(201)
		if n := countKeys(t, h, `SELECT count(*) FROM events WHERE image IS NOT NULL`); n != 4 {
			t.Fatalf("%d events with an image, want 4", n)
		}
		if n := countKeys(t, h, `SELECT count(*) FROM events WHERE image LIKE '%records\_search%' ESCAPE '\'`); n != 0 {
			t.Fatalf("%d event images hold a search column", n)
		}
	})
}

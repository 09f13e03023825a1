package server_test

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/servertest"
)

// children are the edges of DESIGN §3: each parent's plural, the edge a
// read expands to its children, the children's plural and their member
// naming the parent.
var children = []struct{ parent, edge, child, fk string }{
	{"returns", "return_line_items", "return_line_items", "return_id"},
	{"work_orders", "work_order_line_items", "work_order_line_items", "work_order_number"},
	{"warranties", "warranty_line_items", "warranty_line_items", "warranty_id"},
	{"packing_lists", "packing_list_items", "packing_list_items", "packing_list"},
	{"cases", "channel_threads", "channel_threads", "case_id"},
}

// TestTrashedRecordsAreMissingOnEveryReadRoute walks every read route of
// the OpenAPI document with a record of each resource in the trash — by
// its id, in lists, counts, cursors, exports and expansions — and holds
// that the trashed records never show.
func TestTrashedRecordsAreMissingOnEveryReadRoute(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for plural := range plurals {
			h.call("POST", "/v1/"+plural, `{"id":"walk-live-`+plural+`"}`).want(201)
			h.call("POST", "/v1/"+plural, `{"id":"walk-gone-`+plural+`"}`).want(201)
			h.call("DELETE", "/v1/"+plural+"/walk-gone-"+plural, "").want(200)
		}
		// A live parent with a child in the trash, for expand.
		for _, c := range children {
			body := fmt.Sprintf(`{"id":"walk-gone-child-%s",%q:"walk-live-%s"}`, c.child, c.fk, c.parent)
			h.call("POST", "/v1/"+c.child, body).want(201)
			h.call("DELETE", "/v1/"+c.child+"/walk-gone-child-"+c.child, "").want(200)
		}
		if walked := walkReadRoutes(t, h); walked < 40 {
			t.Fatalf("walked %d read routes; the document has more", walked)
		}
		for plural := range plurals {
			walkList(t, h, plural)
		}
		for _, c := range children {
			base := listPath(c.parent)
			missing(t, "expand of "+c.parent, h.call("GET", base+"?expand="+c.edge, "").want(200))
			missing(t, "expand of a "+c.parent, h.call("GET", "/v1/"+c.parent+"/walk-live-"+c.parent+"?expand="+c.edge, "").want(200))
		}
	})
}

// missing fails the test if r, the answer to what, holds a record in the
// trash or is anything but a success or a 404.
func missing(t *testing.T, what string, r *response) {
	t.Helper()
	if r.Status != 200 && r.Status != 201 && r.Status != 404 {
		t.Fatalf("%s: status %d: %s", what, r.Status, r.Body)
	}
	if r.Status != 404 && strings.Contains(string(r.Body), "walk-gone") {
		t.Fatalf("%s answers a record in the trash: %s", what, r.Body)
	}
}

// listPath is the path of a resource's list (cases' is /v1/cases/list).
func listPath(plural string) string {
	if plural == "cases" {
		return "/v1/cases/list"
	}
	return "/v1/" + plural
}

// walkReadRoutes reads every GET route of the OpenAPI document that a
// resource's tag names, with the trashed record's id in the path or in
// each query parameter naming an id, and says how many routes it walked.
func walkReadRoutes(t *testing.T, h *harness) int {
	types := map[string]string{} // resource type to plural
	for plural, typ := range plurals {
		types[typ] = plural
	}
	doc, _ := servertest.Document(t)
	walked := 0
	for _, path := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		op := doc.Paths.Find(path).Get
		if op == nil || len(op.Tags) == 0 || strings.HasSuffix(path, "/history") {
			continue
		}
		plural, ok := types[op.Tags[0]]
		if !ok {
			continue
		}
		gone := "walk-gone-" + plural
		walked++
		if strings.Contains(path, "{id}") {
			p := strings.ReplaceAll(path, "{id}", gone)
			missing(t, "GET "+p, h.call("GET", p, ""))
			continue
		}
		missing(t, "GET "+path, h.call("GET", path, ""))
		for _, param := range op.Parameters {
			if p := param.Value; p != nil && p.In == "query" && p.Schema != nil && strings.HasSuffix(p.Schema.Ref, "/Id") {
				q := path + "?" + url.Values{p.Name: {gone}}.Encode()
				missing(t, "GET "+q, h.call("GET", q, ""))
			}
		}
	}
	return walked
}

// walkList reads a resource's list every way — counted, filtered,
// exported, and page by page with a cursor — and holds that only its live
// records show and are counted.
func walkList(t *testing.T, h *harness, plural string) {
	base := listPath(plural)
	all := h.call("GET", base+"?limit=1000&count=exact", "").want(200)
	missing(t, "a list of "+plural, all)
	live := len(listed(plural, all)) // /v1/cases/list answers List Cases' envelope
	if total := fmt.Sprint(all.at("paging", "total")); total != fmt.Sprint(live) {
		t.Fatalf("%s: count=exact says %s for %d records", plural, total, live)
	}
	missing(t, "a filter of "+plural, h.call("GET", base+"?filter[id]=walk-gone-"+plural, ""))
	h.unchecked = true // the document's checker reads no export
	for _, accept := range []string{"application/x-ndjson", "text/csv"} {
		missing(t, accept+" of "+plural, h.call("GET", base, "", "Accept", accept))
	}
	h.unchecked = false
	// A cursor walks the live records only.
	cursor, pages := "", 0
	for {
		page := base + "?limit=1"
		if cursor != "" {
			page += "&cursor=" + url.QueryEscape(cursor)
		}
		r := h.call("GET", page, "").want(200)
		missing(t, "a page of "+plural, r)
		pages++
		next, _ := r.at("paging", "next_cursor").(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != live {
		t.Fatalf("%s: a cursor walked %d pages of one record, for %d records", plural, pages, live)
	}
}

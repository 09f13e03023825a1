package server_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// An export of the trash carries deleted_at and deleted_by as its JSON
// does: CSV has the two columns whenever trashed rows may be in the answer
// (empty on live rows), NDJSON the two members on trashed records only; an
// export of live records has neither.
func TestExportOfTheTrashSaysWhenAndWho(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/customers", `{"id":"x-live","firstName":"Live"}`).want(201)
		h.call("POST", "/v1/customers", `{"id":"x-gone","firstName":"Gone, \"quoted\""}`).want(201)
		h.call("DELETE", "/v1/customers/x-gone", "").want(200)
		rec := h.call("GET", "/v1/customers/x-gone?trashed=include", "").want(200).JSON.(map[string]any)
		at, by := rec["deleted_at"].(string), rec["deleted_by"].(string)
		if at == "" || by == "" {
			t.Fatalf("the trashed record: %v", rec)
		}
		h.unchecked = true // the document's checker reads no export
		defer func() { h.unchecked = false }()
		rows := func(query string) [][]string {
			t.Helper()
			r := h.call("GET", "/v1/customers"+query, "", "Accept", "text/csv").want(200)
			got, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v: %s", query, err, r.Body)
			}
			return got
		}
		// by id, the cells of the named columns
		cells := func(table [][]string, names ...string) map[string][]string {
			out := map[string][]string{}
			for _, row := range table[1:] {
				var v []string
				for _, n := range names {
					v = append(v, row[slices.Index(table[0], n)])
				}
				out[row[slices.Index(table[0], "id")]] = v
			}
			return out
		}
		for _, q := range []string{"?trashed=include", "?trashed=include&fields=firstName", "?trashed=include&order_by=-id"} {
			table := rows(q)
			if n := len(table[0]); table[0][n-2] != "deleted_at" || table[0][n-1] != "deleted_by" {
				t.Fatalf("%s: header %v", q, table[0])
			}
			got := cells(table, "firstName", "deleted_at", "deleted_by")
			if want := []string{"Live", "", ""}; !slices.Equal(got["x-live"], want) {
				t.Fatalf("%s: the live row %v, want %v", q, got["x-live"], want)
			}
			if want := []string{`Gone, "quoted"`, at, by}; !slices.Equal(got["x-gone"], want) {
				t.Fatalf("%s: the trashed row %v, want %v", q, got["x-gone"], want)
			}
		}
		only := rows("?trashed=only")
		if got := cells(only, "deleted_at", "deleted_by"); len(got) != 1 || !slices.Equal(got["x-gone"], []string{at, by}) {
			t.Fatalf("trashed=only: %v", only)
		}
		if live := rows(""); slices.Contains(live[0], "deleted_at") || slices.Contains(live[0], "deleted_by") || len(live) != 2 {
			t.Fatalf("a live export: %v", live)
		}
		trashExportExpands(t, h)
		trashNDJSONSaysWhenAndWho(t, h, at, by)
	})
}

// trashExportExpands: with expand, its column comes last in a CSV export
// of the trash, and every row has every column (the CSV reader refuses
// rows of another length).
func trashExportExpands(t *testing.T, h *harness) {
	h.call("POST", "/v1/warranties", `{"id":"x-w"}`).want(201)
	h.call("POST", "/v1/warranty_line_items", `{"id":"x-l","warranty_id":"x-w"}`).want(201)
	h.call("DELETE", "/v1/warranties/x-w", "").want(200)
	r := h.call("GET", "/v1/warranties?trashed=include&expand=warranty_line_items", "", "Accept", "text/csv").want(200)
	expanded, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil || len(expanded) != 2 || !slices.Equal(expanded[0][len(expanded[0])-3:], []string{"deleted_at", "deleted_by", "expand"}) ||
		!strings.Contains(expanded[1][len(expanded[1])-1], "x-l") || expanded[1][len(expanded[1])-3] == "" {
		t.Fatalf("an expanded export of the trash (%v): %s", err, r.Body)
	}
}

// trashNDJSONSaysWhenAndWho: an NDJSON export of the trash has deleted_at
// and deleted_by on the trashed record (at, by) alone.
func trashNDJSONSaysWhenAndWho(t *testing.T, h *harness, at, by string) {
	r := h.call("GET", "/v1/customers?trashed=include", "", "Accept", "application/x-ndjson").want(200)
	lines := strings.Split(strings.TrimSpace(string(r.Body)), "\n")
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		_, has := m["deleted_at"]
		switch {
		case m["id"] == "x-gone" && (m["deleted_at"] != at || m["deleted_by"] != by):
			t.Fatalf("NDJSON: the trashed record %s", line)
		case m["id"] == "x-live" && has:
			t.Fatalf("NDJSON: a live record with deleted_at: %s", line)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("NDJSON: %d lines: %s", len(lines), r.Body)
	}
}

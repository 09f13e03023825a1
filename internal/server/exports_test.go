package server_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
)

// exportGet sends a list request with an Accept header to a real server.
func exportGet(t *testing.T, srv *httptest.Server, token, path, accept string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// An export streams every matching record, past any page size, with
// fields honoured, as NDJSON or CSV.
func TestExports(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		if _, err := h.db.Exec(ctx, `INSERT INTO teams (id, name, created_at) VALUES (2, 'spare', CURRENT_TIMESTAMP)`); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2500; i++ {
			sku := fmt.Sprintf("sku,%d \"q\"", i)
			if _, err := h.db.Exec(ctx, `INSERT INTO packing_list_items (id, team_id, sku, quantity) VALUES (?, 1, ?, ?)`,
				fmt.Sprintf("e%05d", i), sku, i%7); err != nil {
				t.Fatal(err)
			}
		}
		srv := httptest.NewServer(h.srv.Handler())
		defer srv.Close()

		resp := exportGet(t, srv, h.token, "/v1/packing_list_items?filter[quantity][ne]=3&order_by=-quantity", "application/x-ndjson")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
			t.Fatalf("%d %s", resp.StatusCode, resp.Header)
		}
		want := 2500 - 2500/7
		if 3 < 2500%7 {
			want--
		}
		lines, last := 0, int64(99)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("line %d: %v", lines, err)
			}
			q := int64(rec["quantity"].(float64))
			if q == 3 || q > last {
				t.Fatalf("line %d: quantity %d after %d", lines, q, last)
			}
			last = q
			lines++
		}
		resp.Body.Close()
		if sc.Err() != nil || lines != want {
			t.Fatalf("%d lines (%v), want %d", lines, sc.Err(), want)
		}

		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?fields=quantity,sku", "text/csv")
		rows, err := csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil || len(rows) != 2501 {
			t.Fatalf("%d rows: %v", len(rows), err)
		}
		if strings.Join(rows[0], "|") != "id|version|quantity|sku" || rows[1][3] != `sku,0 "q"` || rows[1][2] != "0" {
			t.Fatalf("CSV: %v %v", rows[0], rows[1])
		}

		// Media types are case-insensitive (RFC 9110 §8.3.1).
		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?fields=sku", "TEXT/CSV")
		if rows, err := csv.NewReader(resp.Body).ReadAll(); err != nil || len(rows) != 2501 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("Accept: TEXT/CSV: %s, %d rows (%v)", resp.Header.Get("Content-Type"), len(rows), err)
		}
		resp.Body.Close()

		// A JSON client gets pages, whatever else it also accepts.
		resp = exportGet(t, srv, h.token, "/v1/packing_list_items?limit=3", "application/json, text/csv;q=0.5")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"paging"`) {
			t.Fatalf("JSON preferred: %.200s", body)
		}
		// Other teams' records never stream.
		other := h.newToken("other", auth.Read, "spare")
		resp = exportGet(t, srv, other, "/v1/packing_list_items", "application/x-ndjson")
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) != 0 {
			t.Fatalf("another team's export: %d %.100s", resp.StatusCode, body)
		}
	})
}

// A failure midway through an export is never mistaken for a whole file:
// NDJSON ends with an error line, and the body is cut off unterminated.
// The failure: a row the second page cannot read (a date-time the driver
// refuses), placed last.
func TestAnExportFailingMidwayIsCutOff(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			h := newHarness(t, d, testConfig())
			ctx := context.Background()
			for i := 0; i < 1500; i++ {
				if _, err := h.db.Exec(ctx, `INSERT INTO users (id, team_id) VALUES (?, 1)`, "u"+strconv.Itoa(10000+i)); err != nil {
					t.Fatal(err)
				}
			}
			bad := `INSERT INTO users (id, team_id, last_seen) VALUES ('zz', 1, 'garbage')`
			if d == "postgres" {
				bad = `INSERT INTO users (id, team_id, last_seen) VALUES ('zz', 1, 'infinity')`
			}
			if _, err := h.db.Exec(ctx, bad); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h.srv.Handler())
			defer srv.Close()
			for _, accept := range []string{"application/x-ndjson", "text/csv"} {
				resp := exportGet(t, srv, h.token, "/v1/users", accept)
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || err == nil {
					t.Fatalf("%s: %d, the stream ended cleanly after a failure (%v)", accept, resp.StatusCode, err)
				}
				lines := strings.Split(strings.TrimSpace(string(body)), "\n")
				last := lines[len(lines)-1]
				if accept == "application/x-ndjson" && !strings.HasPrefix(last, `{"error":{"type":"/docs#problem-internal"`) {
					t.Fatalf("no error line at the end: %.300s", last)
				}
				if len(lines) < 1000 {
					t.Fatalf("%s: only %d lines came before the failure", accept, len(lines))
				}
			}
			if !strings.Contains(h.logs.String(), `"level":"ERROR"`) {
				t.Fatal("a failed export is logged as an error")
			}
		})
	}
}

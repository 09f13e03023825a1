package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"records/internal/dbtest"
)

// trashBenchRows is the size of the returns table BenchmarkTrash reads.
const trashBenchRows = 20000

// BenchmarkTrash reads a page of 100 returns (by id, and by a sortable
// member) and a return by id, in process, from a table of trashBenchRows
// returns none of which is in the trash ("none"), then from the same table
// with every other return in the trash ("half"): live reads must not pay
// for the trash (README, Performance).
func BenchmarkTrash(b *testing.B) {
	for _, d := range dbtest.Dialects {
		b.Run(dbtest.Name(d), func(b *testing.B) { benchmarkTrash(b, d) })
	}
}

func benchmarkTrash(b *testing.B, dialect string) {
	h := newHarness(b, dialect, testConfig())
	h.unchecked = true
	ctx := context.Background()
	exec := func(text string, args ...any) {
		b.Helper()
		if _, err := h.db.Exec(ctx, text, args...); err != nil {
			b.Fatal(err)
		}
	}
	const batch = 500
	for from := 0; from < trashBenchRows; from += batch {
		var rows []string
		var args []any
		for i := from; i < from+batch; i++ {
			rows = append(rows, "(?, 1, 1, ?, ?, ?)")
			created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			args = append(args, fmt.Sprintf("r-%06d", i), []string{"open", "closed"}[i%2], created, "a return of some length")
		}
		exec(`INSERT INTO "returns" ("id", "team_id", "version", "status", "created_date", "description") VALUES `+strings.Join(rows, ", "), args...)
	}
	analyze := func() {
		if !h.db.Postgres() {
			exec(`ANALYZE`)
			return
		}
		exec(`VACUUM ANALYZE "returns"`)
	}
	analyze()
	reads := []struct{ name, path string }{
		{"list-100", "/v1/returns?limit=100"},
		{"list-100-by-created", "/v1/returns?limit=100&order_by=-created_date"},
		{"get", "/v1/returns/r-010000"},
	}
	run := func(state string) {
		for _, r := range reads {
			b.Run(state+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					req := httptest.NewRequest("GET", r.path, nil)
					req.Header.Set("Authorization", "Bearer "+h.token)
					w := httptest.NewRecorder()
					h.srv.Handler().ServeHTTP(w, req)
					if w.Code != 200 {
						b.Fatal(w.Code, w.Body.String())
					}
				}
			})
		}
	}
	run("none")
	// Every other return to the trash: the odd ones, so that the live
	// records read above (r-010000) stay.
	exec(`UPDATE "returns" SET "deleted_at" = ?, "deleted_by" = 'bench', "trash_batch" = "id" WHERE "id" IN (SELECT "id" FROM "returns" WHERE "status" = 'closed')`,
		time.Now().UnixMicro())
	analyze()
	run("half")
}

// With half the table in the trash, a list of live records and a record
// by id are served by the partial indexes (DESIGN §17: live reads do not
// pay for the trash): the planners of both databases walk them, and never
// read the trash's rows.
func TestLiveReadsWalkPartialIndexes(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			h := newHarness(t, d, testConfig())
			h.unchecked = true
			for batch := range 2 {
				h.call("POST", "/v1/returns", jsonArray(1000, func(i int) string {
					return fmt.Sprintf(`{"id":"r-%04d","status":"%s"}`, batch*1000+i, []string{"open", "closed"}[i%2])
				})).want(201)
			}
			ctx := context.Background()
			if _, err := h.db.Exec(ctx, `UPDATE "returns" SET "deleted_at" = 1, "trash_batch" = "id" WHERE "status" = 'closed'`); err != nil {
				t.Fatal(err)
			}
			analyze := `ANALYZE`
			if h.db.Postgres() {
				analyze = `ANALYZE "returns"`
			}
			if _, err := h.db.Exec(ctx, analyze); err != nil {
				t.Fatal(err)
			}
			reads := []struct{ path, index string }{
				{"/v1/returns?limit=100", "returnrecord_team_id_id"},
				{"/v1/returns?limit=100&order_by=-created_date", "returnrecord_team_id_created_date_id"},
			}
			for _, r := range reads {
				if n := len(h.call("GET", r.path, "").want(200).list("returns")); n != 100 {
					t.Fatalf("%s: %d returns", r.path, n)
				}
			}
			for _, r := range reads {
				var stmt string
				col := strings.TrimSuffix(strings.TrimPrefix(r.index, "returnrecord_team_id_"), "_id")
				for _, text := range h.db.Prepared() {
					if strings.HasPrefix(text, `SELECT "id", "version"`) && strings.Contains(text, `FROM "returns"`) &&
						strings.Contains(text, `"deleted_at" IS NULL`) && strings.Contains(text, `ORDER BY "`+col+`"`) && strings.HasSuffix(text, "LIMIT ?") {
						stmt = text
					}
				}
				if stmt == "" {
					t.Fatalf("%s: no list statement among %q", r.path, h.db.Prepared())
				}
				plan := explainPlan(t, h, d, stmt, []any{1, 101})
				if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Sort") || strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, r.index) {
					t.Fatalf("%s is not a walk of the partial index %s:\n%s\n%s", r.path, r.index, stmt, plan)
				}
			}
		})
	}
}

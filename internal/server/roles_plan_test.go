package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/migrate"
)

// A role's filter does not turn an indexed list into a scan: the agent's
// list of its cases (DESIGN's example, resolver = $auth.sub) is served by
// the index (team, resolver, id), on both databases, as the planners
// choose it over 3,000 cases of 50 resolvers.
func TestRoleFilterIsServedByAnIndex(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newRolesHarness(t, d, "")
			for batch := range 3 {
				h.call("POST", "/v1/cases", jsonArray(1000, func(i int) string {
					return fmt.Sprintf(`{"caseName":"c%d","priority":"normal","resolver":"r%d"}`, batch*1000+i, i%50)
				})).want(201)
			}
			ctx := context.Background()
			if d == migrate.Postgres {
				if _, err := h.db.SQL.ExecContext(ctx, `ANALYZE "cases"`); err != nil {
					t.Fatal(err)
				}
			} else if _, err := h.db.SQL.ExecContext(ctx, `ANALYZE`); err != nil {
				t.Fatal(err)
			}
			agent := h.roleToken("agent", "r7", auth.Write)
			page := h.uncheckedAs(agent, "GET", "/v1/cases?limit=100", "").want(200)
			if n := len(page.list("data", "case")); n != 60 {
				t.Fatalf("the agent's list holds %d cases, want 60", n)
			}
			var stmt string
			for _, text := range h.db.Prepared() {
				if strings.HasPrefix(text, `SELECT "id", "version", "case_name"`) && strings.Contains(text, `"resolver" = ?`) && strings.HasSuffix(text, "LIMIT ?") {
					stmt = text
				}
			}
			if stmt == "" {
				t.Fatalf("no list statement with the role's filter among %q", h.db.Prepared())
			}
			text := explainPlan(t, h, d, stmt, []any{1, "r7", 101})
			t.Logf("%s\n%s", stmt, text)
			if strings.Contains(text, "Seq Scan") || strings.Contains(text, "SCAN cases") && !strings.Contains(text, "INDEX") {
				t.Fatalf("the role's list scans the table:\n%s", text)
			}
			if !strings.Contains(text, "caserecord_team_id_resolver_id") {
				t.Fatalf("the role's list is not served by the index (team, resolver, id):\n%s", text)
			}
		})
	}
}

// explainPlan is the database's plan of the statement stmt with args, one
// line per row of EXPLAIN (QUERY PLAN on SQLite).
func explainPlan(t *testing.T, h *harness, dialect, stmt string, args []any) string {
	t.Helper()
	var plan []string
	explain := "EXPLAIN QUERY PLAN "
	if dialect == migrate.Postgres {
		explain = "EXPLAIN "
	}
	err := h.db.Each(context.Background(), -1, explain+stmt, args, func(rows *sql.Rows) error {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		var line string
		for i := range vals {
			vals[i] = new(sql.RawBytes)
		}
		if err := rows.Scan(vals...); err != nil {
			return err
		}
		for _, v := range vals {
			line += string(*v.(*sql.RawBytes)) + " "
		}
		plan = append(plan, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

package server_test

import (
	"context"
	"database/sql"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/dbtest"
)

// Text is ordered and compared by code point on both databases, whatever
// the PostgreSQL database's default collation: under ICU's en-US "_x"
// sorts before "a" and "a" before "B", where code points put "B, Z, _x,
// a, c". Orders, cursors, gt/gte/lt/lte and prefix all follow the one
// order (TestListsAgreeWithTheOracle runs its queries under each too).
func TestTextFollowsCodePointOrder(t *testing.T) {
	eachCollation(t, func(t *testing.T, h *harness) {
		for _, name := range []string{"a", "B", "c", "Z", "_x", "é", "ab"} {
			h.call("POST", "/v1/users", `{"id":"u`+name+`","username":"`+name+`"}`).want(201)
		}
		names := func(path string) []string {
			var out []string
			for _, u := range h.call("GET", path, "").want(200).list("users") {
				out = append(out, u.(map[string]any)["username"].(string))
			}
			return out
		}
		inOrder := []string{"B", "Z", "_x", "a", "ab", "c", "é"}
		cases := []struct {
			query string
			want  []string
		}{
			{"order_by=username", inOrder},
			{"order_by=-username", reversed(inOrder)},
			{"order_by=username&filter[username][gt]=a", []string{"ab", "c", "é"}},
			{"order_by=username&filter[username][gte]=Z", []string{"Z", "_x", "a", "ab", "c", "é"}},
			{"order_by=username&filter[username][lt]=a", []string{"B", "Z", "_x"}},
			{"order_by=username&filter[username][lte]=_x", []string{"B", "Z", "_x"}},
			{"order_by=username&filter[username][prefix]=a", []string{"a", "ab"}},
			{"order_by=id&filter[id][gt]=uZ", []string{"_x", "a", "ab", "c", "é"}},
		}
		for _, c := range cases {
			if got := names("/v1/users?" + c.query); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		// Walked two at a time by cursor, in either direction.
		for _, order := range []string{"username", "-username"} {
			var got []string
			path := "/v1/users?limit=2&order_by=" + order
			for path != "" {
				r := h.call("GET", path, "").want(200)
				for _, u := range r.list("users") {
					got = append(got, u.(map[string]any)["username"].(string))
				}
				path = ""
				if next, _ := r.at("paging", "next_cursor").(string); next != "" {
					path = "/v1/users?limit=2&order_by=" + order + "&cursor=" + url.QueryEscape(next)
				}
			}
			want := inOrder
			if order[0] == '-' {
				want = reversed(inOrder)
			}
			if !slices.Equal(got, want) {
				t.Errorf("walked by %s: %v, want %v", order, got, want)
			}
		}
	})
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// Every text column and index is collated "C", so the indexes are built
// in the collation the statements compare in, and a
// list ordered by a sortable text member, a cursor's keyset and a range or
// prefix filter on it walk the index (team, member, id) under an ICU
// default collation too, rather than read and sort the whole table.
func TestTextOrdersWalkTheirIndexes(t *testing.T) {
	h := newHarness(t, dbtest.PostgresICU, testConfig())
	statuses := []string{"open", "Open", "_held", "closed", "B"}
	h.call("POST", "/v1/returns", jsonArray(1000, func(i int) string {
		return `{"status":"` + statuses[i%len(statuses)] + `"}`
	})).want(201)
	ctx := context.Background()
	conn, err := h.db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ANALYZE "returns"`); err != nil {
		t.Fatal(err)
	}
	// The planner may read a table this small whole: forbid that, so that
	// the plan shows whether the index can serve the statement at all.
	if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `RESET enable_seqscan`)
	// Every text column, and so every index of one, is in code-point order
	// (but the migrations' own bookkeeping, which nothing compares, and the
	// search indexes' keys: a GIN index of a tsvector keeps its lexemes as
	// text, in the database's collation, and no order is read from them).
	rows, err := conn.QueryContext(ctx, `SELECT c.relname || '.' || a.attname FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname NOT LIKE 'schema_migrations%' AND c.relkind IN ('r', 'i') AND a.attnum > 0 AND NOT a.attisdropped
AND a.atttypid IN ('text'::regtype, 'varchar'::regtype) AND a.attname NOT LIKE 'records\_search%' AND a.attcollation <> (SELECT oid FROM pg_collation WHERE collname = 'C')
ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var other []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		other = append(other, name)
	}
	rows.Close()
	if len(other) > 0 {
		t.Errorf("text columns and index columns not collated \"C\": %v", other)
	}
	// The statements of query.Page's phases: a first page, a page after a
	// cursor's position, range filters going down, a prefix.
	for _, q := range []string{
		`SELECT "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL AND "status" IS NOT NULL ORDER BY "status" ASC, "id" ASC LIMIT 11`,
		`SELECT "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL AND ("status", "id") > ('Open', 'x') ORDER BY "status" ASC, "id" ASC LIMIT 11`,
		`SELECT "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL AND "status" > 'B' AND "status" <= 'open' AND "status" IS NOT NULL ORDER BY "status" DESC, "id" DESC LIMIT 11`,
		`SELECT "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL AND starts_with("status", 'Op') AND "status" IS NOT NULL ORDER BY "status" ASC, "id" ASC LIMIT 11`,
	} {
		plan := explain(t, conn, q)
		if !strings.Contains(plan, "Index") || strings.Contains(plan, "Sort") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s\nis not an index walk:\n%s", q, plan)
		}
	}
}

func explain(t *testing.T, conn *sql.Conn, q string) string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "EXPLAIN "+q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"records/internal/migrate"
)

func TestMetrics(t *testing.T) {
	h := newHarness(t, migrate.SQLite, testConfig())
	h.call("POST", "/v1/customers", `{"id":"c-1"}`).want(201)
	h.call("GET", "/v1/customers/c-1", "").want(200)
	h.call("GET", "/v1/customers/c-1", "").want(200)
	h.call("GET", "/v1/customers/nope", "").problem(404, "not_found")
	r := h.callAs("", "GET", "/metrics", "").want(200)
	body := string(r.Body)
	for _, want := range []string{
		`records_http_requests_total{method="GET",route="/v1/customers/:id",status="200"} 2`,
		`records_http_requests_total{method="GET",route="/v1/customers/:id",status="404"} 1`,
		`records_http_requests_total{method="POST",route="/v1/customers",status="201"} 1`,
		`records_http_request_duration_seconds_bucket{method="GET",route="/v1/customers/:id",status="200",le="+Inf"} 2`,
		`go_sql_max_open_connections{db_name="records"}`,
		`go_goroutines`,
		"records_webhook_queue_depth 0\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, h.token) {
		t.Fatal("the metrics hold a token")
	}
	if strings.Contains(body, "records_events_log_held_back") {
		t.Error("SQLite holds no event back, yet the metrics say how many")
	}
}

// A transaction left open in the service's database holds the event log
// back; the metrics say by how many transactions and for how long. (Other
// tests share the server, so only lower bounds are certain.)
func TestEventLogHeldBackMetrics(t *testing.T) {
	h := newHarness(t, migrate.Postgres, testConfig())
	ctx := context.Background()
	tx, err := h.db.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil { // takes an id
		t.Fatal(err)
	}
	for i := range 3 {
		h.call("POST", "/v1/customers", fmt.Sprintf(`{"id":"held-%d"}`, i)).want(201)
	}
	time.Sleep(1100 * time.Millisecond)
	body := string(h.callAs("", "GET", "/metrics", "").want(200).Body)
	if v := gaugeValue(t, body, "records_events_log_held_back_transactions"); v < 3 {
		t.Errorf("held back by %v transactions, want at least the 3 creates since the open one", v)
	}
	if v := gaugeValue(t, body, "records_events_log_oldest_transaction_seconds"); v < 1 {
		t.Errorf("oldest transaction open %v s, want at least 1", v)
	}
}

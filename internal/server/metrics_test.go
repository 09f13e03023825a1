package server_test

import (
	"strings"
	"testing"

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
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, h.token) {
		t.Fatal("the metrics hold a token")
	}
}

package edge

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/logging"
	"records/internal/problem"
)

// With sampling, one successful request's line in N is written; every
// failed request's is. Every request is observed (counted) all the same.
func TestAccessLogSamplesSuccesses(t *testing.T) {
	for _, c := range []struct {
		sample       int
		level        slog.Level
		wantOK       int
		wantFailures int
	}{{1, slog.LevelInfo, 100, 7}, {10, slog.LevelInfo, 10, 7}, {1, slog.LevelWarn, 0, 0}} {
		var logs bytes.Buffer
		observed := 0
		e := gin.New()
		e.Use(RequestID, AccessLog(logging.JSONAt(&logs, c.level), func(string, string, int, time.Duration) { observed++ }, c.sample), Recover)
		e.GET("/ok", func(c *gin.Context) { c.Status(200) })
		e.GET("/bad", func(c *gin.Context) { Fail(c, problem.New(problem.InvalidRequest, "no")) })
		for range 100 {
			e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/ok", nil))
		}
		for range 7 {
			e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/bad", nil))
		}
		ok, bad := strings.Count(logs.String(), `"route":"GET /ok"`), strings.Count(logs.String(), `"route":"GET /bad"`)
		if ok != c.wantOK || bad != c.wantFailures || observed != 107 {
			t.Errorf("sample %d, level %v: %d and %d lines, %d observed; want %d and %d, 107", c.sample, c.level, ok, bad, observed, c.wantOK, c.wantFailures)
		}
	}
}

package guard

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/edge"
)

// instance is one server's chain: the principal, then the shared limit.
func instance(rdb *redis.Client, perSecond float64, burst int, logs *bytes.Buffer, token string) *gin.Engine {
	e := gin.New()
	e.Use(func(c *gin.Context) {
		c.Request = c.Request.WithContext(edge.Authenticated(c.Request.Context(), auth.Principal{TokenID: token, Team: 1}, time.Now().Add(time.Minute), ""))
	}, SharedRateLimit(rdb, perSecond, burst, slog.New(slog.NewJSONHandler(logs, nil))))
	e.GET("/", func(c *gin.Context) { c.Status(200) })
	return e
}

// Two instances on one Redis share a token's limit: together they let
// through the burst, not twice it.
func TestSharedRateLimitHoldsAcrossInstances(t *testing.T) {
	u := dbtest.RedisURL(t)
	opts, _ := redis.ParseURL(u)
	token := "shared-" + time.Now().Format("150405.000000000")
	var logs bytes.Buffer
	var engines []*gin.Engine
	for range 2 {
		rdb := redis.NewClient(opts)
		t.Cleanup(func() { rdb.Close() })
		engines = append(engines, instance(rdb, 1, 5, &logs, token))
	}
	ok, limited := 0, 0
	for i := range 12 {
		w := httptest.NewRecorder()
		engines[i%2].ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		switch w.Code {
		case 200:
			ok++
		case 429:
			limited++
			if w.Header().Get("Retry-After") == "" {
				t.Fatal("a 429 without Retry-After")
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	}
	if ok != 5 || limited != 7 {
		t.Fatalf("two instances let %d through and limited %d; want the burst of 5 in all", ok, limited)
	}
}

// With Redis down, requests are limited per instance, and a warning says so.
func TestSharedRateLimitFallsBackWhenRedisIsDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 50 * time.Millisecond, MaxRetries: -1})
	defer rdb.Close()
	var logs bytes.Buffer
	e := instance(rdb, 1, 3, &logs, "down")
	ok := 0
	for range 5 {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Code == 200 {
			ok++
		}
	}
	if ok != 3 {
		t.Fatalf("with Redis down, %d of 5 let through; want the local burst of 3", ok)
	}
	if n := strings.Count(logs.String(), "Redis unavailable"); n != 1 {
		t.Fatalf("want one warning, got %d:\n%s", n, logs.String())
	}
}

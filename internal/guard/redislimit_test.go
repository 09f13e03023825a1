package guard

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"records/internal/auth"
	"records/internal/edge"
)

// redisURL is the Redis the tests use: TEST_REDIS_URL, or the local one.
func redisURL(t *testing.T) string {
	u := os.Getenv("TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/15"
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s is unreachable, and CI requires it: %v", u, err)
		}
		t.Skipf("Redis unreachable (set TEST_REDIS_URL): %v", err)
	}
	return u
}

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
	u := redisURL(t)
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

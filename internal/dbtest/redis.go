package dbtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisURL is the Redis tests use: TEST_REDIS_URL, or the local one's
// database 15. When it does not answer the test is skipped — except under
// CI=true, where it fails.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/15"
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		tb.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("Redis at %s is unreachable, and CI requires it: %v", u, err)
		}
		tb.Skipf("Redis unreachable (set TEST_REDIS_URL): %v", err)
	}
	return u
}

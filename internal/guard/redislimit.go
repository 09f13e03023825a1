package guard

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"records/internal/auth"
	"records/internal/edge"
)

// redisTimeout bounds the limiter's round trip to Redis: a slow Redis must
// not slow every request down.
const redisTimeout = 100 * time.Millisecond

// warnEvery spaces the warnings that Redis cannot be reached.
const warnEvery = 10 * time.Second

// SharedRateLimit is RateLimit with the buckets in Redis (GCRA, by
// redis_rate), so that the limit holds across every instance using the
// same Redis. When Redis fails or is slow, the request is limited by this
// instance's own buckets instead, and a warning is logged (at most every
// 10 s): Redis down degrades the limit to per instance, it never refuses
// requests.
func SharedRateLimit(rdb *redis.Client, perSecond float64, burst int, log *slog.Logger) gin.HandlerFunc {
	limiter := redis_rate.NewLimiter(rdb)
	limit := redisLimit(perSecond, burst)
	local := newLimiters(perSecond, burst)
	var warned atomic.Int64
	return func(c *gin.Context) {
		p, _ := auth.FromContext(c.Request.Context())
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), redisTimeout)
		res, err := limiter.Allow(ctx, "records:token:"+p.TokenID, limit)
		cancel()
		if err != nil {
			now := time.Now()
			if last := warned.Load(); now.UnixNano()-last > int64(warnEvery) && warned.CompareAndSwap(last, now.UnixNano()) {
				log.Warn("rate limit: Redis unavailable, limiting per instance", "error", err)
			}
			if retry, ok := local.take(p.TokenID); !ok {
				edge.Fail(c, rateLimited(retry, "this token's rate limit is exhausted"))
			}
			return
		}
		if res.Allowed == 0 {
			edge.Fail(c, rateLimited(res.RetryAfter, "this token's rate limit is exhausted"))
		}
	}
}

// redisLimit expresses perSecond and burst as redis_rate counts them, in
// whole requests per period.
func redisLimit(perSecond float64, burst int) redis_rate.Limit {
	if perSecond >= 1 {
		return redis_rate.Limit{Rate: int(math.Round(perSecond)), Burst: max(burst, 1), Period: time.Second}
	}
	return redis_rate.Limit{Rate: 1, Burst: max(burst, 1), Period: time.Duration(float64(time.Second) / math.Max(perSecond, 1e-6))}
}

package guard

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/problem"
)

// RateLimit limits each token to perSecond requests a second, with bursts
// of burst, answering 429 with Retry-After past it. Limits are kept per
// instance.
func RateLimit(perSecond float64, burst int) gin.HandlerFunc {
	l := newLimiters(perSecond, burst)
	return func(c *gin.Context) {
		p, _ := auth.FromContext(c.Request.Context())
		if retry, ok := l.take(p.TokenID); !ok {
			edge.Fail(c, rateLimited(retry, "this token's rate limit is exhausted"))
		}
	}
}

func rateLimited(retry time.Duration, why string) *problem.Error {
	secs := int(math.Ceil(retry.Seconds()))
	return &problem.Error{Code: problem.RateLimited, Detail: why + "; retry later", RetryAfter: max(secs, 1)}
}

// limiters keeps a token bucket per key, dropping buckets idle for long.
// Buckets are found without a lock shared by all keys (a sync.Map); each
// bucket locks only itself.
type limiters struct {
	limit rate.Limit
	burst int

	buckets sync.Map // key → *bucket
	count   atomic.Int64
	sweepMu sync.Mutex
	sweep   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	used atomic.Int64 // unix nanoseconds of the last use
}

// idleAfter is how long an unused bucket is kept; a full bucket refills well before.
const idleAfter = 10 * time.Minute

func newLimiters(perSecond float64, burst int) *limiters {
	return &limiters{limit: rate.Limit(perSecond), burst: burst, sweep: time.Now()}
}

func (l *limiters) get(key string, now time.Time) *bucket {
	l.sweepIdle(now)
	v, ok := l.buckets.Load(key)
	if !ok {
		var loaded bool
		v, loaded = l.buckets.LoadOrStore(key, &bucket{lim: rate.NewLimiter(l.limit, l.burst)})
		if !loaded {
			l.count.Add(1)
		}
	}
	b := v.(*bucket)
	b.used.Store(now.UnixNano())
	return b
}

// sweepIdle drops the buckets unused for idleAfter, at most once per idleAfter.
func (l *limiters) sweepIdle(now time.Time) {
	if !l.sweepMu.TryLock() {
		return
	}
	defer l.sweepMu.Unlock()
	if now.Sub(l.sweep) < idleAfter {
		return
	}
	l.sweep = now
	l.buckets.Range(func(k, v any) bool {
		if now.Sub(time.Unix(0, v.(*bucket).used.Load())) > idleAfter {
			l.buckets.Delete(k)
			l.count.Add(-1)
		}
		return true
	})
}

// take spends one request of key's bucket; when it is empty, it says how
// long until one is available.
func (l *limiters) take(key string) (time.Duration, bool) {
	now := time.Now()
	r := l.get(key, now).lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// spent tells, without spending, whether key's bucket is empty. It costs
// almost nothing while no key has a bucket.
func (l *limiters) spent(key string) (time.Duration, bool) {
	if l.count.Load() == 0 {
		return 0, false
	}
	v, ok := l.buckets.Load(key)
	if !ok {
		return 0, false
	}
	now := time.Now()
	tokens := v.(*bucket).lim.TokensAt(now)
	if tokens >= 1 {
		return 0, false
	}
	return time.Duration((1 - tokens) / float64(l.limit) * float64(time.Second)), true
}

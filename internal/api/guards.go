package api

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"records/internal/auth"
	"records/internal/problem"
)

// KeyTeam holds the request's team number, for the access log.
const KeyTeam = "records.team"

// Verifier checks a token's secret.
type Verifier interface {
	Verify(ctx context.Context, secret string) (auth.Principal, error)
}

// Failed authentications per client address: past this rate the address is
// answered 429 without a lookup, so guessing tokens costs the guesser, not
// the database.
const (
	failRate  = 5
	failBurst = 20
)

// Authenticate admits requests with a valid `Authorization: Bearer <key>`
// or `Authorization: Token <key>` (scheme in any case), and answers 401
// otherwise. The request's context then acts for the token's team.
func Authenticate(v Verifier) gin.HandlerFunc {
	fails := newLimiters(failRate, failBurst)
	return func(c *gin.Context) {
		ip := c.ClientIP()
		if retry, spent := fails.spent(ip); spent {
			Fail(c, rateLimited(retry, "too many failed authentications from this address"))
			return
		}
		secret, why := credentials(c.GetHeader("Authorization"))
		if why != "" {
			fails.take(ip)
			Fail(c, problem.New(problem.Unauthenticated, "%s", why))
			return
		}
		p, err := v.Verify(c.Request.Context(), secret)
		if errors.Is(err, auth.ErrInvalidToken) {
			fails.take(ip)
			Fail(c, problem.New(problem.Unauthenticated, "%s", err.Error()))
			return
		}
		if err != nil {
			Fail(c, err)
			return
		}
		c.Request = c.Request.WithContext(auth.WithPrincipal(c.Request.Context(), p))
		c.Set(KeyTeam, p.Team)
	}
}

// credentials reads the key of an Authorization header, or says what is wrong.
func credentials(header string) (key, problem string) {
	if header == "" {
		return "", "send the header Authorization: Bearer <token>"
	}
	scheme, rest, _ := strings.Cut(header, " ")
	key = strings.TrimSpace(rest)
	switch {
	case !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "Token"):
		return "", "the Authorization scheme must be Bearer or Token"
	case key == "" || strings.ContainsAny(key, " \t"):
		return "", "the Authorization header must be: Bearer <token>"
	}
	return key, ""
}

// RequireWrite answers 403 to a token that may only read. The router puts
// it before the handlers of routes that always write.
func RequireWrite(c *gin.Context) {
	if err := mayWrite(c.Request.Context()); err != nil {
		Fail(c, err)
	}
}

// RateLimit limits each token to perSecond requests a second, with bursts
// of burst, answering 429 with Retry-After past it. Limits are kept per
// instance.
func RateLimit(perSecond float64, burst int) gin.HandlerFunc {
	l := newLimiters(perSecond, burst)
	return func(c *gin.Context) {
		p, _ := auth.FromContext(c.Request.Context())
		if retry, ok := l.take(p.TokenID); !ok {
			Fail(c, rateLimited(retry, "this token's rate limit is exhausted"))
		}
	}
}

func rateLimited(retry time.Duration, why string) *problem.Error {
	secs := int(math.Ceil(retry.Seconds()))
	return &problem.Error{Code: problem.RateLimited, Detail: why + "; retry later", RetryAfter: max(secs, 1)}
}

// limiters keeps a token bucket per key, dropping buckets idle for long.
type limiters struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

// idleAfter is how long an unused bucket is kept; a full bucket refills well before.
const idleAfter = 10 * time.Minute

func newLimiters(perSecond float64, burst int) *limiters {
	return &limiters{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}, sweep: time.Now()}
}

func (l *limiters) get(key string, now time.Time) *bucket {
	if now.Sub(l.sweep) > idleAfter {
		for k, b := range l.buckets {
			if now.Sub(b.used) > idleAfter {
				delete(l.buckets, k)
			}
		}
		l.sweep = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.used = now
	return b
}

// take spends one request of key's bucket; when it is empty, it says how
// long until one is available.
func (l *limiters) take(key string) (time.Duration, bool) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.get(key, now).lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// spent tells, without spending, whether key's bucket is empty.
func (l *limiters) spent(key string) (time.Duration, bool) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok || b.lim.TokensAt(now) >= 1 {
		return 0, false
	}
	return time.Duration((1 - b.lim.TokensAt(now)) / float64(l.limit) * float64(time.Second)), true
}

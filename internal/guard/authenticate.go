package guard

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/problem"
)

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
// otherwise. The request's context then acts for the token's team and
// carries the request's deadline, timeout from now (see edge.Authenticated).
// Failed attempts are braked per client address: the peer's, or behind
// the trusted proxies the one they forwarded.
func Authenticate(v Verifier, timeout time.Duration, proxies Proxies) gin.HandlerFunc {
	fails := newLimiters(failRate, failBurst)
	return func(c *gin.Context) {
		// X-Forwarded-For only from a trusted proxy: a client can forge it.
		ip := proxies.Client(c.Request)
		if retry, spent := fails.spent(ip); spent {
			edge.Fail(c, rateLimited(retry, "too many failed authentications from this address"))
			return
		}
		secret, why := credentials(c.Request.Header.Values("Authorization"))
		if why != "" {
			fails.take(ip)
			edge.Fail(c, problem.New(problem.Unauthenticated, "%s", why))
			return
		}
		p, err := v.Verify(c.Request.Context(), secret)
		if errors.Is(err, auth.ErrInvalidToken) {
			fails.take(ip)
			edge.Fail(c, problem.New(problem.Unauthenticated, "%s", err.Error()))
			return
		}
		if err != nil {
			edge.Fail(c, err)
			return
		}
		c.Request = c.Request.WithContext(edge.Authenticated(c.Request.Context(), p, time.Now().Add(timeout), edge.RequestIDOf(c)))
	}
}

// Revoked tells whether the token a request was admitted with has since
// been revoked or expired — for an answer that outlives the moment it was
// admitted (the event stream), which then ends. v answers from its cache
// (a second, by default), so a stream may ask often. A database that cannot
// answer is no verdict: false.
func Revoked(ctx context.Context, v Verifier, r *http.Request) bool {
	secret, why := credentials(r.Header.Values("Authorization"))
	if why != "" {
		return true
	}
	_, err := v.Verify(ctx, secret)
	return errors.Is(err, auth.ErrInvalidToken)
}

// credentials reads the key of a request's Authorization header (headers
// are its values), or says what is wrong. Two headers are refused, not one
// of them picked: which one a proxy or a server reads differs, so
// accepting them would let a request pass as one caller here and as another
// elsewhere.
func credentials(headers []string) (key, problem string) {
	switch {
	case len(headers) > 1:
		return "", "only one Authorization header may be sent; this request has " + strconv.Itoa(len(headers))
	case len(headers) == 0 || headers[0] == "":
		return "", "send the header Authorization: Bearer <token>"
	}
	header := headers[0]
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

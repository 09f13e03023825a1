package guard

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/jwtauth"
	"records/internal/problem"
	"records/internal/spec"
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
		if err != nil {
			fail(c, fails, ip, err)
			return
		}
		if role := c.Request.Header.Get(RoleHeader); role != "" {
			if err := pickRole(&p, role); err != nil {
				edge.Fail(c, err)
				return
			}
		}
		c.Request = c.Request.WithContext(edge.Authenticated(c.Request.Context(), p, time.Now().Add(timeout), edge.RequestIDOf(c)))
	}
}

// fail answers a credential that did not verify: 401 when it is bad (and
// the address's brake takes one), whatever else err says otherwise.
// Apart from Authenticate, so that the success path allocates nothing for
// errors.As.
func fail(c *gin.Context, fails *limiters, ip string, err error) {
	var bad *jwtauth.Error
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		fails.take(ip)
		edge.Fail(c, problem.New(problem.Unauthenticated, "%s", err.Error()))
	case errors.As(err, &bad):
		fails.take(ip)
		edge.Fail(c, &problem.Error{Code: problem.Unauthenticated, Detail: "invalid JWT: " + bad.Check, InvalidToken: true})
	default:
		edge.Fail(c, err)
	}
}

// RoleHeader picks one of the roles a caller's credential grants.
const RoleHeader = "Records-Role"

// pickRole makes role the principal's, if its credential grants it.
func pickRole(p *auth.Principal, role string) error {
	if role == p.Role || slices.Contains(p.Roles, role) {
		p.Role = role
		return nil
	}
	granted := p.Roles
	if len(granted) == 0 {
		granted = []string{p.Role}
	}
	return problem.New(spec.PermissionDenied, "the %s header names %q, a role this credential does not grant (it grants %s)",
		RoleHeader, role, strings.Join(granted, ", "))
}

// Credentials verify a request's credential: a JWT by the identity
// provider's verifier, when one is configured; anything else (and every
// credential without one) by the API token store.
type Credentials struct {
	Tokens Verifier
	JWT    *jwtauth.Verifier
}

// Verify verifies secret.
func (cr Credentials) Verify(ctx context.Context, secret string) (auth.Principal, error) {
	if cr.JWT != nil && jwtauth.LooksLikeJWT(secret) {
		return cr.JWT.Verify(ctx, secret)
	}
	return cr.Tokens.Verify(ctx, secret)
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
	var bad *jwtauth.Error
	return errors.Is(err, auth.ErrInvalidToken) || errors.As(err, &bad)
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

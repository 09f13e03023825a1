package guard

import (
	"context"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/problem"
	"records/internal/spec"
)

// RequireWrite answers 403 to a token that may only read. The router puts
// it before the handlers of routes that always write.
func RequireWrite(c *gin.Context) {
	if err := MayWrite(c.Request.Context()); err != nil {
		edge.Fail(c, err)
	}
}

// MayWrite answers 403 for a principal that may only read. Operations that
// write only sometimes (a get-or-create that creates) call it themselves.
func MayWrite(ctx context.Context) error {
	if p, ok := auth.FromContext(ctx); ok && !p.CanWrite() {
		return problem.New(problem.Forbidden, "this token may only read; this request would write")
	}
	return nil
}

// RequireAdmin answers 403 permission_denied to a caller whose role is
// not admin: the router puts it before the routes of events, the event
// stream, webhooks and deliveries, which are admin's (DESIGN §15).
func RequireAdmin(c *gin.Context) {
	if p := auth.PrincipalOf(c.Request.Context()); p != nil && !p.Admin() {
		edge.Fail(c, problem.New(spec.PermissionDenied, "events, the event stream, webhooks and deliveries belong to the admin role; this caller's role is %s", p.Role))
	}
}

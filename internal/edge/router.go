package edge

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"records/internal/problem"
	"records/internal/spec"
)

// Route describes one registered method and path.
type Route struct {
	Method string
	// Path is the gin pattern, e.g. /v1/work_orders/:id.
	Path string
	// Operation is the operation's name, e.g. "Get Work Order".
	Operation string
	Kind      spec.Kind
	Resource  string
	// Deprecated routes answer as their contract route, with a Deprecation
	// header and a Link to Successor, the contract path written as a
	// template, e.g. /v1/work_orders/{id}.
	Deprecated bool
	Successor  string
	// Public routes need no token.
	Public bool
	// AdminOnly routes answer only the admin role (DESIGN §15: events,
	// the stream, webhooks and deliveries).
	AdminOnly bool
}

// Guards are the middleware the router puts before a route's handler, in
// the order the contract ranks competing errors: 401, then 429, then 403
// for a route that always writes. Authenticate also sets the request's
// deadline; public routes get Deadline instead. Written wraps every route
// that may write (read replicas' consistency tokens). Each may be nil.
type Guards struct {
	Authenticate gin.HandlerFunc
	RateLimit    gin.HandlerFunc
	RequireWrite gin.HandlerFunc
	Deadline     gin.HandlerFunc
	Written      gin.HandlerFunc
	// Admin refuses a caller whose role is not admin (AdminOnly routes).
	Admin gin.HandlerFunc
}

// Router registers routes on a gin engine with the guards their metadata
// calls for, and remembers them.
type Router struct {
	engine *gin.Engine
	guards Guards
	routes []Route
}

// NewRouter makes a router on engine. It answers unknown routes with 404
// and known paths with the wrong method with 405 and Allow, both as
// problem+json and before any token is asked for.
func NewRouter(engine *gin.Engine, guards Guards) *Router {
	engine.NoRoute(func(c *gin.Context) {
		Fail(c, problem.New(problem.NotFound, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	engine.NoMethod(func(c *gin.Context) {
		// gin has set Allow to the path's methods.
		allow := strings.Split(c.Writer.Header().Get("Allow"), ", ")
		Fail(c, &problem.Error{
			Code:   problem.MethodNotAllowed,
			Detail: c.Request.Method + " is not allowed on " + c.Request.URL.Path + "; use " + strings.Join(allow, ", "),
			Allow:  allow,
		})
	})
	return &Router{engine: engine, guards: guards}
}

// Handle registers a route.
func (r *Router) Handle(rt Route, h gin.HandlerFunc) {
	var chain []gin.HandlerFunc
	if rt.Deprecated {
		chain = append(chain, deprecation(rt.Successor))
	}
	guards := []gin.HandlerFunc{r.guards.Deadline}
	if !rt.Public {
		guards = []gin.HandlerFunc{r.guards.Authenticate, r.guards.RateLimit}
		if rt.AdminOnly {
			guards = append(guards, r.guards.Admin)
		}
		if rt.Kind.Writes() == spec.Always {
			guards = append(guards, r.guards.RequireWrite)
		}
		if rt.Kind.Writes() != spec.Never {
			guards = append(guards, r.guards.Written)
		}
	}
	for _, g := range guards {
		if g != nil {
			chain = append(chain, g)
		}
	}
	chain = append(chain, h)
	r.engine.Handle(rt.Method, rt.Path, chain...)
	if rt.Method == http.MethodGet {
		// HEAD is GET without the body (RFC 9110 §9.3.2), which net/http
		// drops, keeping its length.
		r.engine.Handle(http.MethodHead, rt.Path, chain...)
	}
	r.routes = append(r.routes, rt)
}

// HandleServices registers the service routes (spec.ServiceRoutes) of
// resource, in their order, each with its handler by operation; a route
// without one is a mistake of the program, and panics.
func (r *Router) HandleServices(resource string, handlers map[string]gin.HandlerFunc) {
	for _, rt := range spec.ServiceRoutes {
		if rt.Resource != resource {
			continue
		}
		h := handlers[rt.Operation]
		if h == nil {
			panic("edge: no handler of " + rt.Operation)
		}
		// Every service route is the event log's or the webhooks': admin's.
		r.Handle(Route{Method: rt.Method, Path: rt.Path, Operation: rt.Operation, Kind: rt.Kind, Resource: rt.Resource, AdminOnly: true}, h)
	}
}

// Routes lists every registered route, in registration order.
func (r *Router) Routes() []Route { return append([]Route(nil), r.routes...) }

// deprecation marks every answer of a deprecated alias, errors included.
func deprecation(successor string) gin.HandlerFunc {
	link := "<" + successor + `>; rel="successor-version"`
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("Deprecation", spec.DeprecationDate)
		h.Set("Link", link)
	}
}

// Public registers a GET route that needs no token and is not one of the
// operations (health, documents); it must be one of spec.PublicRoutes.
func (r *Router) Public(path string, h gin.HandlerFunc) {
	r.Handle(Route{Method: "GET", Path: path, Public: true}, h)
}

package engine

import (
	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/spec"
)

// Routes are the routes package rules adds beside the generated ones. They
// pass the same guards — authentication, the caller's team, the rate
// limit, a write scope for those that write — and get request ids, access
// lines and problem answers as every route does: a handler answers an
// error with edge.Fail.
type Routes struct{ routes []extraRoute }

type extraRoute struct {
	method, path, name string
	kind               spec.Kind
	h                  gin.HandlerFunc
}

// Read adds a route that only reads, e.g. Read("GET", "/v1/returns/:id/label", "Return label", h).
func (r *Routes) Read(method, path, name string, h gin.HandlerFunc) {
	r.routes = append(r.routes, extraRoute{method, path, name, spec.Get, h})
}

// Write adds a route that writes: a read-scoped token is refused it (403).
func (r *Routes) Write(method, path, name string, h gin.HandlerFunc) {
	r.routes = append(r.routes, extraRoute{method, path, name, spec.Action, h})
}

// Register puts the routes on the router.
func (r *Routes) Register(router *edge.Router) {
	for _, rt := range r.routes {
		router.Handle(edge.Route{Method: rt.method, Path: rt.path, Operation: rt.name, Kind: rt.kind, Resource: "rules"}, rt.h)
	}
}

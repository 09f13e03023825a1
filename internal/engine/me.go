package engine

import (
	"maps"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/policy"
	"records/internal/tenant"
	"records/internal/wire"
)

// Me answers GET /v1/me: who the caller is and what its role may do on
// each resource, so that a client offers only what is allowed:
// {"subject","team","role","roles","via","scope","can":{"<plural>":[…]}}.
func (s *Service) Me(c *gin.Context) {
	p := auth.PrincipalOf(c.Request.Context())
	if p == nil {
		edge.Fail(c, tenant.ErrNoTeam)
		return
	}
	role := p.Role
	if role == "" {
		role = policy.Admin
	}
	roles := p.Roles
	if len(roles) == 0 {
		roles = []string{role}
	}
	b := make([]byte, 0, 1024)
	b = append(b, `{"subject":`...)
	b = wire.AppendString(b, p.Subject)
	b = append(b, `,"team":`...)
	b = wire.AppendString(b, p.TeamName)
	b = append(b, `,"role":`...)
	b = wire.AppendString(b, role)
	b = append(b, `,"roles":[`...)
	for i, r := range roles {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, r)
	}
	via := p.Via
	if via == "" {
		via = auth.ViaToken
	}
	b = append(b, `],"via":`...)
	b = wire.AppendString(b, via)
	b = append(b, `,"scope":`...)
	b = wire.AppendString(b, string(p.Scope))
	b = append(b, `,"can":{`...)
	r := s.Policies.Role(role)
	for i, plural := range slices.Sorted(maps.Keys(s.resources)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, plural)
		b = append(b, ":["...)
		ops := policy.Ops
		if !p.Admin() {
			ops = r.Can(plural)
		}
		n := 0
		for _, op := range ops {
			// A read-scoped credential reads, whatever its role grants.
			if op != policy.Read && !p.CanWrite() {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = wire.AppendString(b, string(op))
		}
		b = append(b, ']')
	}
	b = append(b, "}}"...)
	edge.WriteJSON(c, http.StatusOK, func(out []byte) []byte { return append(out, b...) })
}

package client

import "context"

// Me is who the caller is and what its role may do (GET /v1/me).
type Me struct {
	Subject string   `json:"subject"`
	Team    string   `json:"team"`
	Role    string   `json:"role"`
	Roles   []string `json:"roles"`
	Via     string   `json:"via"`   // "token" or "jwt"
	Scope   string   `json:"scope"` // "read" or "write"
	// Can lists, per resource (by plural), the operations the caller may
	// run: read, create, update, delete, restore.
	Can map[string][]string `json:"can"`
}

// Me sends GET /v1/me: who the caller is, and what its role may do.
func (c *Client) Me(ctx context.Context, opts ...RequestOption) (*Me, error) {
	return send[Me](ctx, c, call{method: "GET", path: "/v1/me"}, opts)
}

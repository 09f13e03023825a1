package gen

import "records/internal/spec"

// The document's part of identity and roles (DESIGN §15): GET /v1/me, its
// schema, and the credentials the server takes.

// addMePath puts GET /v1/me in paths.
func addMePath(put putOperation) {
	put("GET", spec.PathMe, newObj(
		"operationId", "me", "tags", []any{"Service"}, "summary", "Who the caller is and what it may do",
		"description", "The caller's subject, team, role (and every role its credential grants: the header Records-Role picks one), "+
			"how it signed in (an API token or a JWT of the identity provider), its scope, and per resource the operations its role may run, "+
			"so that a client offers only what is allowed.",
		"responses", withErrors(newObj("200", jsonAnswer("The caller.", ref("Me"))), 401, 403, 429, 500, 503),
	))
}

// addMeSchemas defines the schema of GET /v1/me's answer, and the names
// of its parts.
func addMeSchemas(c *catalog) {
	c.define("Operation", newObj("type", "string", "enum", []any{"read", "create", "update", "delete", "restore"},
		"description", "An operation a role may run on a resource."))
	c.define("Operations", newObj("type", "array", "items", ref("Operation")))
	c.define("CredentialKind", newObj("type", "string", "enum", []any{"token", "jwt"},
		"description", "How the caller signed in: an API token, or a JWT of the identity provider."))
	c.define("Scope", newObj("type", "string", "enum", []any{"read", "write"},
		"description", "A read scope reads only, whatever the role grants."))
	c.define("Can", newObj("type", "object", "additionalProperties", ref("Operations"),
		"description", "Per resource (by plural), the operations the caller may run."))
	c.define("Me", newObj("type", "object",
		"properties", newObj(
			"subject", newObj("type", "string", "description", "Who the role's policies see as $auth.sub: a JWT's sub, or an API token's subject (its id unless given)."),
			"team", newObj("type", "string", "description", "The team's name."),
			"role", newObj("type", "string", "description", "The role in force: admin may do everything."),
			"roles", newObj("type", "array", "items", newObj("type", "string"), "description", "Every role the credential grants."),
			"via", ref("CredentialKind"),
			"scope", ref("Scope"),
			"can", ref("Can"),
		),
		"required", []any{"subject", "team", "role", "roles", "via", "scope", "can"}, "additionalProperties", false))
}

// securitySchemes are the credentials every /v1 route but the document
// takes: an API token (as Bearer or Token), or a JWT of the identity
// provider the server is configured with.
func securitySchemes() *obj {
	return newObj(
		"bearer", newObj("type", "http", "scheme", "bearer", "description", "Authorization: Bearer <API token>"),
		"token", newObj("type", "apiKey", "in", "header", "name", "Authorization", "description", "Authorization: Token <API token>"),
		"jwt", newObj("type", "http", "scheme", "bearer", "bearerFormat", "JWT",
			"description", "Authorization: Bearer <JWT>, signed by the identity provider the server trusts (--oidc-issuer or --jwks-url)."),
	)
}

// security lists the schemes, any one of which admits a request.
var security = []any{newObj("bearer", []any{}), newObj("token", []any{}), newObj("jwt", []any{})}

// unauthorizedChallenge is the WWW-Authenticate of a 401: with
// error="invalid_token" when a JWT failed a check.
var unauthorizedChallenge = newObj("type", "string", "enum", []any{`Bearer realm="records"`, `Bearer realm="records", error="invalid_token"`})

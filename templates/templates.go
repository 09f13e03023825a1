// Package templates holds the generator's text/template files, embedded so
// the generator binary carries them: ent/ extends ent's own code generation,
// the others render the service's handlers, routes and OpenAPI document.
package templates

import "embed"

// FS holds every template.
//
//go:embed ent/*.tmpl api/*.tmpl docs/*.md client/*.tmpl
var FS embed.FS

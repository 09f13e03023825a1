// Package templates holds the generator's text/template files, embedded so
// the generator binary carries them: ent/ extends ent's own code generation,
// api/ renders the service's resources, operations and OpenAPI document,
// client/ the Go and TypeScript clients (client/gosrc: the Go client's
// files that are the same for every schema, copied as they are), docs/ the
// document's introduction.
package templates

import "embed"

// FS holds every template.
//
//go:embed ent/*.tmpl api/*.tmpl docs/*.md client/*.tmpl client/gosrc/*.go
var FS embed.FS

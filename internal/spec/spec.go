// Package spec holds what the generator and the runtime must agree on: the
// kinds of operation, the bounds of a list, the public routes, the date the
// sample routes were deprecated and the problem codes. Both sides import it,
// so a value written into generated code or the OpenAPI document is the value
// the server enforces. It imports nothing but the standard library.
package spec

// Package spec holds what the generator and the runtime must agree on: the
// kinds of operation, the bounds of a list, the public routes, the date the
// sample routes were deprecated and the problem codes. Both sides import it,
// so a value written into generated code or the OpenAPI document is the value
// the server enforces. It imports nothing but the standard library.
package spec

// InsertKeyWithImage begins the statement storing an idempotency key with
// the row image of the record its create made (the answer is rendered from
// the image on replay): the engine's one-statement keyed create on
// PostgreSQL and the SQLite creation triggers the generator writes both
// continue it with a SELECT of these columns.
const InsertKeyWithImage = `INSERT INTO "idempotency_keys" ("id", "fingerprint", "status", "body", "image", "created_at", "expires_at") `

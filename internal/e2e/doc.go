// Package e2e drives the generated clients against a real server: the Go
// client (package client) through every route it sends to, on SQLite and
// on PostgreSQL, and the TypeScript client through its type checker. It
// holds only tests.
package e2e

// Package query is the list query language of the API: filters with
// operators and and/or/not, orders of several keys, keyset cursors, counts,
// sparse members and related records. It parses them from a JSON body or a
// query string against a resource's members and compiles them to SQL for
// SQLite or PostgreSQL.
//
// No input reaches SQL text: a member becomes its known column, an
// operator one of a fixed set of fragments, and every value a parameter.
// SQL is written with ? placeholders; package db numbers them for
// PostgreSQL.
package query

import (
	"records/internal/spec"
	"records/internal/wire"
)

// Dialect is the database a query is compiled for: its name as package
// spec gives it (an open database's Dialect converts as it is).
type Dialect string

// The dialects.
const (
	SQLite   Dialect = spec.SQLite
	Postgres Dialect = spec.Postgres
)

// Column is a member a list may filter and order by.
type Column struct {
	Member string    // the API's name, e.g. "customerEmail"
	Name   string    // the SQL column, e.g. "customer_email"
	Type   spec.Type // decides the operators and how values parse
	// Sortable members have an index (team, member, id), so a cursor walks
	// an order by them without sorting.
	Sortable bool
	// Parse converts a member's raw JSON value to the Go value stored in
	// the column (string, int64, float64, bool, time.Time).
	Parse func(raw []byte) (any, error)
}

// quoted is the column as SQL: a double-quoted identifier (both dialects).
func (c *Column) quoted() string { return spec.Ident(c.Name) }

// IDColumn is the column every record has: its id.
var IDColumn = &Column{Member: "id", Name: "id", Type: spec.String, Sortable: true,
	Parse: func(raw []byte) (any, error) { return wire.ID(raw) }}

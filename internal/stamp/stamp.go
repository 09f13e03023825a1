// Package stamp is the server's clock for the members it fills: Date/Time
// stamps in UTC with the microsecond precision both databases keep (so what
// a write answers equals what a later read answers), and stamps typed as
// text in RFC 3339, UTC, to the second.
package stamp

import "time"

// Now is a Date/Time stamp.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Text is a stamp typed as text.
func Text() string { return time.Now().UTC().Format(time.RFC3339) }

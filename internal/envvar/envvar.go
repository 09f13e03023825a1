// Package envvar reads the environment variables the commands offer as
// defaults of their flags. Only cmd/ reads the environment; what it reads
// flows down as configuration.
package envvar

import "os"

// Or is the value of the environment variable key, or fallback when it is
// unset or empty: `DATABASE_URL= make run` means the default, as an unset
// variable does.
func Or(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

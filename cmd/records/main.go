// Command records runs the records service: an HTTP/JSON API for business
// records over SQLite or PostgreSQL.
//
//	records serve     serve the API
//	records migrate   apply pending database migrations
//	records token     create, list and revoke API tokens
//	records version   print the version
package main

import (
	"os"
)

func main() { os.Exit(Do(os.Args[1:], os.Stdout, os.Stderr)) }

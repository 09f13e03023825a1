// Command recordsgen generates the records service from its specification:
// the ent schemas in schema/ (and, with them, the route table).
//
//	recordsgen generate   write every generated file
//	recordsgen check      fail, naming them, if generated files are stale
//	recordsgen dev        serve, and regenerate, rebuild and restart on every edit
package main

import (
	"os"
)

func main() { os.Exit(Do(os.Args[1:], os.Stdout, os.Stderr)) }

// Command recordsgen generates the records service from its specification,
// the ent schemas and the route table in schema/: ent's data layer, the
// resources package (descriptors, operations, the OpenAPI document), the Go
// and TypeScript clients, and the migrations of both databases.
//
//	recordsgen generate       write every generated file (refusing an edit that breaks clients or data)
//	recordsgen check          fail, naming them, if generated files are stale
//	recordsgen new resource   scaffold a resource in schema/
//	recordsgen dev            serve, and regenerate, rebuild and restart on every edit
package main

import (
	"os"
)

func main() { os.Exit(Do(os.Args[1:], os.Stdout, os.Stderr)) }

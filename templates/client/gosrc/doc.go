// Package client holds the parts of the generated Go client that are the
// same for every schema: its transport, list and read parameters, and the
// event log's and webhooks' calls. The generator copies these files as
// they are (with the generated-code header) beside the files it renders
// from client/*.go.tmpl; doc.go and stub.go stay here.
package client

package gen

// The clients' files are rows of outputs (render.go) whose templates are
// templates/client, rendered with the clients' model (client_model.go)
// into the Go client's folder and the TypeScript client's.
//
// The Go client is a package of its own (client/ in this repository),
// every file of it rendered from the templates, the fixed runtime
// included, so the generator owns the whole folder. The TypeScript client
// is runtime.ts (the transport, problems, lists, the event log and
// webhooks) and records.ts (the types, services and client). fetch sends
// no body with GET, so its reads travel as query strings, and a
// get-or-create's create form, which needs a GET with a body, is the Go
// client's only. A method's receiver, parameters and call literal are
// written by templates/client/calls.tmpl from the clientCall's data.

// clientDirs are the clients' folders, which the generation owns.
func (c Config) clientDirs() []string {
	var dirs []string
	for _, d := range []string{c.GoClientDir, c.TSClientDir} {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

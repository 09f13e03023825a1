package gen

// The clients' files are rows of outputs (render.go) whose templates are
// templates/client, rendered with the clients' model (client_model.go)
// into the Go client's folder and the TypeScript client's.

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

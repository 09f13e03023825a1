package devloop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Build says how the service is built.
type Build struct {
	Go      string   // the go command; "go" when empty
	Package string   // the main package, e.g. "./cmd/records"
	Flags   []string // go build flags
	Env     []string // added to the environment of go build
}

// run builds the service into out, in dir. A failure returns the compiler's
// output, whose lines name file:line.
func (b Build) run(ctx context.Context, dir, out string) error {
	goCmd := b.Go
	if goCmd == "" {
		goCmd = "go"
	}
	args := append(append([]string{"build"}, b.Flags...), "-o", out, b.Package)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), b.Env...)
	// Interrupted, go build is asked to stop rather than killed, so it
	// stops the compilers it started.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("building %s: %w\n%s", b.Package, err, strings.TrimRight(output.String(), "\n"))
	}
	return nil
}

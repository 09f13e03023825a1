// Package devloop is the spec-edit loop of `recordsgen dev`: it serves the
// API, watches the specification, and on every change regenerates, rebuilds
// and restarts the server. A mistake is reported and the previous server
// keeps answering until an edit fixes it.
package devloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Config is what the loop runs. The command line fills it in.
type Config struct {
	Root  string   // the repository; builds and the watched folders are relative to it
	Watch []string // folders watched for changes, e.g. "schema", "templates"
	Poll  time.Duration
	// Generate regenerates the generated files from the specification and
	// says how many it changed (-1: unknown). Its error is reported and
	// the running server kept.
	Generate func(ctx context.Context) (changed int, err error)
	Build    Build
	Serve    []string  // arguments of `records serve`
	Out      io.Writer // the loop's lines, and the server's standard output
	Log      io.Writer // the server's log
}

// defaultPoll notices an edit quickly at the cost of a few dozen stat calls.
const defaultPoll = 100 * time.Millisecond

// Run serves and rebuilds until ctx ends, then stops the server.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Poll <= 0 {
		cfg.Poll = defaultPoll
	}
	out := &lockedWriter{w: cfg.Out}
	tmp, err := os.MkdirTemp("", "recordsgen-dev-")
	if err != nil {
		return err
	}
	l := &loop{cfg: cfg, out: out, log: &lockedWriter{w: cfg.Log}, tmp: tmp, stale: true}
	defer os.RemoveAll(tmp)
	defer func() {
		if err := l.srv.stop(); err != nil {
			fmt.Fprintln(out, "dev: stopping the server:", err)
		}
	}()

	seen := take(cfg.Root, cfg.Watch)
	l.cycle(ctx, time.Time{})
	for {
		if !sleep(ctx, cfg.Poll) {
			return nil
		}
		now := take(cfg.Root, cfg.Watch)
		changed := seen.diff(now)
		if len(changed) == 0 {
			continue
		}
		noticed := time.Now()
		// An editor may write several files, or one in several steps:
		// wait for a poll that sees nothing new.
		for {
			if !sleep(ctx, cfg.Poll) {
				return nil
			}
			again := take(cfg.Root, cfg.Watch)
			if len(now.diff(again)) == 0 {
				break
			}
			now = again
		}
		changed = seen.diff(now)
		seen = now
		fmt.Fprintf(out, "dev: %s changed\n", summarize(changed))
		l.cycle(ctx, noticed)
	}
}

// loop is Run's state between cycles.
type loop struct {
	cfg      Config
	out, log io.Writer
	tmp      string
	srv      *server
	builds   int
	// stale is set when the generated files may differ from what the
	// server was built from, and cleared by a successful build.
	stale bool
}

// cycle regenerates, rebuilds and restarts, reporting each step's time and,
// unless it is the first, the time since the edit was noticed. Any failure
// leaves the running server as it is.
func (l *loop) cycle(ctx context.Context, noticed time.Time) {
	start := time.Now()
	changed, err := l.cfg.Generate(ctx)
	generated := time.Since(start)
	switch {
	case err != nil && l.srv != nil:
		l.fail(ctx, "regenerating", err)
		return
	case err != nil:
		// Nothing serves yet: serve the generated files as they are.
		fmt.Fprintf(l.out, "dev: regenerating failed:\n%s\ndev: building the generated files as they are\n", err)
	case changed != 0:
		l.stale = true
	}
	if !l.stale && l.srv != nil {
		fmt.Fprintf(l.out, "dev: regenerated in %s, nothing changed; serving at %s\n", seconds(generated), l.srv.url)
		return
	}
	start = time.Now()
	l.builds++
	bin := filepath.Join(l.tmp, fmt.Sprintf("records-%d", l.builds))
	if err := l.cfg.Build.run(ctx, l.cfg.Root, bin); err != nil {
		l.fail(ctx, "building", err)
		return
	}
	l.stale = false
	built := time.Since(start)
	start = time.Now()
	if err := l.restart(ctx, bin); err != nil {
		l.fail(ctx, "starting the new server", err)
		return
	}
	line := fmt.Sprintf("dev: regenerated in %s, built in %s, restarted in %s: serving at %s",
		seconds(generated), seconds(built), seconds(time.Since(start)), l.srv.url)
	if !noticed.IsZero() {
		line += fmt.Sprintf(" (%s after the edit was seen)", seconds(time.Since(noticed)))
	}
	fmt.Fprintln(l.out, line)
}

// restart stops the running server and starts bin in its place (the port
// is the same: the old one must let go of it first). If bin does not come
// up, the previous binary is started again.
func (l *loop) restart(ctx context.Context, bin string) error {
	prev := l.srv
	if err := prev.stop(); err != nil {
		fmt.Fprintln(l.out, "dev:", err)
	}
	l.srv = nil
	next, err := startServer(ctx, bin, l.cfg.Serve, l.out, l.log)
	if err == nil {
		l.srv = next
		if prev != nil {
			os.Remove(prev.bin)
		}
		return nil
	}
	os.Remove(bin)
	if prev != nil && ctx.Err() == nil {
		if back, backErr := startServer(ctx, prev.bin, l.cfg.Serve, l.out, l.log); backErr == nil {
			l.srv = back
		} else {
			err = errors.Join(err, fmt.Errorf("restarting the previous build: %w", backErr))
		}
	}
	return err
}

// fail reports a failed step, and who is still serving.
func (l *loop) fail(ctx context.Context, step string, err error) {
	if ctx.Err() != nil {
		return // interrupted: not a mistake to report
	}
	fmt.Fprintf(l.out, "dev: %s failed:\n%s\n", step, err)
	if l.srv != nil {
		fmt.Fprintf(l.out, "dev: the previous build still serves at %s; waiting for the next edit\n", l.srv.url)
	} else {
		fmt.Fprintln(l.out, "dev: nothing is served; waiting for the next edit")
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// summarize names the first changed files.
func summarize(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// lockedWriter serialises the loop's lines and the server's output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

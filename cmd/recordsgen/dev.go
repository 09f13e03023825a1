package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"records/internal/devloop"
	"records/internal/envvar"
	"records/internal/gen"
	"records/templates"
)

// devBuild is how dev builds the service: for the edit-to-served time, not
// for speed or debugging. Measured on a one-member edit (README,
// Performance): no inlining in the project's own packages roughly halves
// the compile of ent/ and internal/resources; no DWARF saves compiling and
// linking it; the compiler collects garbage only near 2 GiB (ent's package
// peaks at 1.5), which saves its GC time; -trimpath lets copies of the
// repository in other folders share the build cache. The tags are the
// Makefile's (nomsgpack: gin without its MessagePack codec).
var devBuild = devloop.Build{
	Package: "./cmd/records",
	Flags: []string{"-trimpath", "-buildvcs=false", "-tags=nomsgpack",
		"-gcflags=work=-l -dwarf=false", "-ldflags=-s -w -X main.version=dev"},
	Env: []string{"GOGC=" + envvar.Or("GOGC", "off"), "GOMEMLIMIT=" + envvar.Or("GOMEMLIMIT", "2GiB")},
}

func newDevCmd(cfg *gen.Config) *cobra.Command {
	var (
		opts generateOpts
		poll time.Duration
	)
	cmd := &cobra.Command{
		Use: "dev [-- records serve flags]",
		Example: `  recordsgen dev                                 # SQLite in data/records.db, on 127.0.0.1:8080
  recordsgen dev -- --addr 127.0.0.1:9090        # flags after -- are records serve's
  DATABASE_URL=postgres://… recordsgen dev       # and so is its environment
  make dev ARGS='--addr 127.0.0.1:9090'`,
		Short: "Serve the API, and regenerate, rebuild and restart it on every edit of schema/ or templates/",
		Long: `Serve the API as records serve does, with the same flags (after --) and
environment, and watch schema/ and templates/. On a change, regenerate as
recordsgen generate does (an edit that breaks clients is refused unless
--allow-breaking), build, and restart the server, which migrates its
database. A mistake is printed with its file and line, and the previous
server keeps answering until an edit fixes it. Ctrl-C stops the server too.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected %q: records serve's flags go after --", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if os.Getenv("GOGC") == "" {
				// ent's code generation allocates much and keeps little:
				// a lazier collector regenerates about half a second sooner.
				debug.SetGCPercent(400)
			}
			return devloop.Run(ctx, devloop.Config{
				Root:  cfg.Root,
				Watch: []string{cfg.SchemaDir, "templates"},
				Poll:  poll,
				Generate: func(ctx context.Context) (int, error) {
					return devGenerate(ctx, *cfg, opts, cmd.ErrOrStderr())
				},
				Build: devBuild,
				Serve: args,
				Out:   cmd.OutOrStdout(),
				Log:   cmd.ErrOrStderr(),
			})
		},
	}
	opts.register(cmd, cfg)
	cmd.Flags().DurationVar(&poll, "poll", 100*time.Millisecond, "how often schema/ and templates/ are looked at")
	return cmd
}

// devGenerate regenerates for dev and says how many files changed (-1: not
// known). The generator runs in this process while the templates on disk
// are the ones built into it; once they are edited, a generator built from
// the source runs instead (go run), since the templates are part of it.
func devGenerate(ctx context.Context, cfg gen.Config, opts generateOpts, stderr io.Writer) (int, error) {
	current, err := templatesCurrent(filepath.Join(cfg.Root, "templates"))
	if err != nil {
		return 0, err
	}
	if current {
		_, changes, err := generate(ctx, cfg, opts, stderr)
		return len(changes), err
	}
	args := []string{"run", "./cmd/recordsgen", "generate", "--dev-postgres-url", cfg.DevPostgresURL}
	if cfg.MigrationName != "" {
		args = append(args, "--migration-name", cfg.MigrationName)
	}
	if opts.allowBreaking {
		args = append(args, "--allow-breaking")
	}
	run := exec.CommandContext(ctx, "go", args...)
	run.Dir = cfg.Root
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Run(); err != nil {
		return 0, fmt.Errorf("the generator built from the source (the templates changed) failed: %w\n%s", err, strings.TrimRight(out.String(), "\n"))
	}
	return -1, nil
}

// templatesCurrent tells whether the templates in dir are those built into
// this binary: the same files, byte for byte.
func templatesCurrent(dir string) (bool, error) {
	embedded := map[string]bool{}
	same := true
	err := fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		embedded[p] = true
		want, _ := templates.FS.ReadFile(p)
		have, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		same = same && err == nil && bytes.Equal(have, want)
		return nil
	})
	if err != nil {
		return false, err
	}
	// A template added on disk is new too (the glob of its folder picks
	// it up): each folder's pattern is looked at once.
	patterns := map[string]bool{}
	for p := range embedded {
		patterns[filepath.Join(dir, filepath.FromSlash(path.Dir(p)), "*"+path.Ext(p))] = true
	}
	for pattern := range patterns {
		more, err := filepath.Glob(pattern)
		if err != nil {
			return false, err
		}
		for _, m := range more {
			rel, _ := filepath.Rel(dir, m)
			same = same && embedded[filepath.ToSlash(rel)]
		}
	}
	return same, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"records/internal/envvar"
	"records/internal/gen"
)

// defaultDevPostgres is where a scratch schema is made to write PostgreSQL
// migrations when RECORDSGEN_DEV_POSTGRES_URL does not say otherwise.
const defaultDevPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&connect_timeout=5"

// errStale makes check exit non-zero after it has listed the stale files.
var errStale = errors.New("generated files are stale: run `make generate`")

// Do runs the command line args and returns the exit code. Tests call it
// with their own writers.
func Do(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "recordsgen:", err)
		return 1
	}
	return 0
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	cfg := gen.DefaultConfig()
	cfg.DevPostgresURL = envvar.Or("RECORDSGEN_DEV_POSTGRES_URL", defaultDevPostgres)
	root := &cobra.Command{
		Use: "recordsgen",
		Example: `  recordsgen generate                            # after editing schema/
  recordsgen check                               # in CI: are the generated files fresh?
  recordsgen dev                                 # serve, and regenerate, rebuild, restart on every edit
  recordsgen completion zsh > "${fpath[1]}/_recordsgen"`,
		Short:         "Generate the records service from schema/",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&cfg.Root, "root", cfg.Root, "repository root (run from inside its module)")
	root.PersistentFlags().StringVar(&cfg.DevPostgresURL, "dev-postgres-url", cfg.DevPostgresURL,
		"PostgreSQL where a scratch schema is made to write PostgreSQL migrations (env RECORDSGEN_DEV_POSTGRES_URL)")
	root.AddCommand(newGenerateCmd(&cfg), newCheckCmd(&cfg), newNewCmd(&cfg), newDevCmd(&cfg))
	return root
}

func newGenerateCmd(cfg *gen.Config) *cobra.Command {
	var opts generateOpts
	cmd := &cobra.Command{
		Use: "generate",
		Example: `  recordsgen generate
  recordsgen generate --migration-name add_loyalty_tier
  recordsgen generate --dry-run                  # what would change, and the migration; writes nothing
  recordsgen generate --allow-breaking           # an edit that drops a member, a route or data, on purpose
  recordsgen generate --dev-postgres-url postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable`,
		Short: "Write every generated file: ent/, migrations, resources, OpenAPI, clients",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			out, changes, err := generate(cmd.Context(), *cfg, opts, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if opts.dryRun {
				return printPlan(w, cfg.Root, out)
			}
			for _, c := range changes {
				fmt.Fprintf(w, "%-6s %s\n", c.Kind, c.Path)
			}
			fmt.Fprintf(w, "%d files generated, %d changed (%s)\n", len(out.Files), len(changes), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	opts.register(cmd, cfg)
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the files that would change and the new migrations, and write nothing")
	return cmd
}

// generateOpts are generate's choices; dev has them too, but --dry-run.
type generateOpts struct{ allowBreaking, dryRun bool }

func (o *generateOpts) register(cmd *cobra.Command, cfg *gen.Config) {
	cmd.Flags().StringVar(&cfg.MigrationName, "migration-name", "", "name of the migration file written if the schema changed")
	cmd.Flags().BoolVar(&o.allowBreaking, "allow-breaking", false, "write an edit that drops or retypes a member, drops a resource or route, or drops data")
}

// generate is `recordsgen generate`, for it and for dev: it generates every
// file, refuses an edit that breaks clients or loses data (naming each
// break on stderr) unless allowed, and writes the files — but with dryRun,
// which writes nothing.
func generate(ctx context.Context, cfg gen.Config, opts generateOpts, stderr io.Writer) (*gen.Output, []gen.Change, error) {
	out, err := gen.Generate(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	breaks, err := gen.Breaking(cfg, out)
	if err != nil {
		return nil, nil, err
	}
	if len(breaks) > 0 {
		fmt.Fprintln(stderr, "this edit would break:")
		for _, b := range breaks {
			fmt.Fprintln(stderr, "  "+b)
		}
		if !opts.allowBreaking && !opts.dryRun {
			return nil, nil, errBreaking
		}
	}
	if opts.dryRun {
		return out, nil, nil
	}
	changes, err := out.Write(cfg.Root)
	if err != nil {
		return nil, nil, err
	}
	printNotes(stderr, out)
	return out, changes, nil
}

// errBreaking refuses an edit that would break clients or lose data.
var errBreaking = errors.New("refused: the edit would break clients or lose data (listed above), " +
	"so nothing was written; run with --dry-run to see the plan, or --allow-breaking to write it")

// printPlan prints what generate would change, and the SQL of the
// migrations it would add.
func printPlan(w io.Writer, root string, out *gen.Output) error {
	changes, err := out.Changes(root)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		fmt.Fprintln(w, "nothing would change")
		return nil
	}
	for _, c := range changes {
		fmt.Fprintf(w, "would %-6s %s\n", c.Kind, c.Path)
	}
	for _, c := range changes {
		if c.Kind == "create" && strings.HasSuffix(c.Path, ".sql") {
			fmt.Fprintf(w, "\n== %s\n%s", c.Path, out.Files[c.Path])
		}
	}
	return nil
}

func newCheckCmd(cfg *gen.Config) *cobra.Command {
	return &cobra.Command{
		Use:     "check",
		Example: `  recordsgen check`,
		Short:   "Exit non-zero, naming them, if generated files differ from what generate would write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := gen.Generate(cmd.Context(), *cfg)
			if err != nil {
				return err
			}
			changes, err := out.Changes(cfg.Root)
			if err != nil {
				return err
			}
			printNotes(cmd.ErrOrStderr(), out)
			if len(changes) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "generated files are up to date")
				return nil
			}
			for _, c := range changes {
				fmt.Fprintf(cmd.ErrOrStderr(), "stale: %s (generate would %s it)\n", c.Path, c.Kind)
			}
			return errStale
		},
	}
}

func printNotes(w io.Writer, out *gen.Output) {
	for _, n := range out.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func newNewCmd(cfg *gen.Config) *cobra.Command {
	newCmd := &cobra.Command{
		Use:   "new",
		Short: "Scaffold part of the specification",
	}
	var r gen.NewResource
	resource := &cobra.Command{
		Use: "resource NAME",
		Example: `  recordsgen new resource Shipment --field carrier:text --field weight:number --field shipped_on:date
  recordsgen new resource Parcel --field tracking:text --parent Shipment   # a child: the parent gets its edge
  make generate NAME=add_shipments`,
		Short: "Write the ent schema of a new resource (and, for a child, its parent's edge), for make generate",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Type = args[0]
			files, err := gen.Scaffold(*cfg, r)
			if err != nil {
				return err
			}
			for _, p := range slices.Sorted(maps.Keys(files)) {
				if err := os.WriteFile(filepath.Join(cfg.Root, filepath.FromSlash(p)), files[p], 0o644); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "next: make generate NAME=add_"+gen.Plural(r)+" (review the schema first: members, sortable ones, parents)")
			return nil
		},
	}
	resource.Flags().StringArrayVar(&r.Fields, "field", nil, "a member, name:type; type is text, integer, number, numeric, boolean, date or datetime (repeat)")
	resource.Flags().StringVar(&r.Parent, "parent", "", "the parent resource (contract name, e.g. Return): the new one is its child")
	resource.Flags().StringVar(&r.Plural, "plural", "", "the collection's name (default: the name in snake_case, pluralised)")
	newCmd.AddCommand(resource)
	return newCmd
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"records/internal/db"
	"records/internal/envvar"
	"records/internal/logging"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Do runs the command line args and returns the exit code. Tests call it
// with their own writers.
func Do(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "records:", err)
		return 1
	}
	return 0
}

// dbFlags are the flags of every command that opens the database.
type dbFlags struct {
	url       string
	maxConns  int
	noMigrate bool
}

func (f *dbFlags) register(cmd *cobra.Command, migrateFlag bool) {
	cmd.Flags().StringVar(&f.url, "database-url", envvar.Or("DATABASE_URL", db.DefaultURL),
		"database: sqlite:PATH, sqlite:///abs/path or postgres://… (env DATABASE_URL)")
	cmd.Flags().IntVar(&f.maxConns, "db-max-conns", 0, "cap on open database connections (0: sized for this machine)")
	if migrateFlag {
		cmd.Flags().BoolVar(&f.noMigrate, "no-migrate", false, "do not apply pending migrations; refuse to start if any are pending")
	}
}

// open opens the database and, unless --no-migrate, applies pending
// migrations, reporting each on log.
func (f *dbFlags) open(ctx context.Context, log *slog.Logger) (*db.DB, error) {
	database, err := db.Open(ctx, db.Config{URL: f.url, MaxConns: f.maxConns})
	if err != nil {
		return nil, err
	}
	if f.noMigrate {
		err = database.CheckSchema(ctx)
	} else {
		err = migrateAndLog(ctx, database, log)
	}
	if err != nil {
		database.Close()
		return nil, err
	}
	return database, nil
}

// with opens the database (migrating unless --no-migrate), runs fn, and closes it.
func (f *dbFlags) with(cmd *cobra.Command, fn func(ctx context.Context, database *db.DB) error) error {
	ctx := cmd.Context()
	database, err := f.open(ctx, newLogger(cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	defer database.Close()
	return fn(ctx, database)
}

func migrateAndLog(ctx context.Context, database *db.DB, log *slog.Logger) error {
	applied, err := database.Migrate(ctx)
	for _, m := range applied {
		log.Info("applied migration", "migration", m.Name)
	}
	return err
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use: "records",
		Example: `  records serve                                  # SQLite in data/records.db, on 127.0.0.1:8080
  DATABASE_URL=postgres://… records serve        # PostgreSQL
  records token create --name ci --scope read
  records completion bash > /etc/bash_completion.d/records`,
		Short:         "The records service: an HTTP/JSON API for business records",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		newServeCmd(),
		newMigrateCmd(),
		newTokenCmd(),
		newVersionCmd(),
	)
	return root
}

// newLogger writes JSON log lines to w, unbuffered: for the short
// commands; serve buffers its own.
func newLogger(w io.Writer) *slog.Logger { return logging.JSON(w) }

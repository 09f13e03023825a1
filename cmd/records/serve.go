package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/logging"
	"records/internal/server"
	"records/internal/tracing"
)

func newServeCmd() *cobra.Command {
	f := serveFlags{cfg: server.DefaultConfig()}
	cmd := &cobra.Command{
		Use: "serve",
		Example: `  records serve
  records serve --addr 0.0.0.0:8080 --database-url postgres://user@db:5432/records?sslmode=require
  records serve --redis-url redis://cache:6379/0 --log-sample 10
  records serve --database-url 'postgres://db1:5432,db2:5432/records?sslmode=require' \
                --replica-url 'postgres://db2:5432/records?sslmode=require' --redis-url redis://cache:6379/0
  records serve --nats-url nats://nats:4222 --nats-stream RECORDS
  records serve --oidc-issuer https://login.example.com/realms/acme --jwt-audience records --policies roles.yaml
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 records serve`,
		Short: "Serve the API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			return serve(cmd, &f.db, cfg)
		},
	}
	f.register(cmd)
	return cmd
}

// serve runs the server until the command's context ends: the log and the
// tracing, the database (migrated unless --no-migrate) and its first
// token, then the server, drained on the way out.
func serve(cmd *cobra.Command, dbf *dbFlags, cfg server.Config) error {
	ctx := cmd.Context()
	tuneGC()
	logs := logging.NewBuffered(cmd.ErrOrStderr(), 200*time.Millisecond)
	defer logs.Close()
	log := logging.JSONAt(logs, cfg.LogLevel)
	stopTracing, err := tracing.Setup(log)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(sctx); err != nil {
			log.Warn("tracing: flushing spans", "error", err)
		}
	}()
	database, err := dbf.open(ctx, log)
	if err != nil {
		return err
	}
	defer database.Close()
	if err := firstToken(ctx, database, cmd.OutOrStdout()); err != nil {
		return err
	}
	srv, err := server.New(cfg, database, logs)
	if err != nil {
		return err
	}
	if err := srv.Open(); err != nil {
		return err
	}
	log.Info("listening", "addr", srv.Addr(), "version", version)
	fmt.Fprintf(cmd.OutOrStdout(), "records: serving on http://%s\n", srv.Addr())
	select {
	case err := <-srv.Done():
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	if err := srv.Close(); err != nil {
		return err
	}
	return <-srv.Done()
}

// firstToken makes a token for the default team when the database has none,
// so a new user can make a first request, and prints its secret once.
func firstToken(ctx context.Context, database *db.DB, w io.Writer) error {
	store := auth.NewStore(database, 0)
	n, err := store.Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	tok, secret, err := store.Create(ctx, "first token", auth.Write, auth.DefaultTeam, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "records: the database had no API token, so one was made for team %s (id %s, scope %s).\n", tok.TeamName, tok.ID, tok.Scope)
	fmt.Fprintln(w, "records: keep its secret; it is shown only now: send it as Authorization: Bearer <secret>")
	fmt.Fprintln(w, secret)
	return nil
}

// tuneGC lets the heap grow to three times what is live (GOGC=200) under
// a soft memory limit of 48 MiB. The service's live heap is about 1 MiB,
// so at Go's default rate the collector runs at its 4 MiB floor, some 60
// cycles a second under a GET load, each about a millisecond of CPU: at
// 200 it runs a third as often, for 4 MiB more resident at the peak
// (docs/performance.md, "The collector at twice Go's rate again").
// GOGC and GOMEMLIMIT, when set, win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
}

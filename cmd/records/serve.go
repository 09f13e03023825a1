package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"records/internal/server"
)

func newServeCmd() *cobra.Command {
	var (
		dbf dbFlags
		cfg = server.DefaultConfig()
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log := newLogger(cmd.ErrOrStderr())
			database, err := dbf.open(ctx, log)
			if err != nil {
				return err
			}
			defer database.Close()
			srv := server.New(cfg, database, log)
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
		},
	}
	dbf.register(cmd, true)
	cmd.Flags().StringVar(&cfg.Addr, "addr", envOr("RECORDS_ADDR", cfg.Addr), "address to listen on (env RECORDS_ADDR)")
	cmd.Flags().DurationVar(&cfg.ReadHeaderTimeout, "header-timeout", cfg.ReadHeaderTimeout, "time a client may take to send its request headers")
	cmd.Flags().DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "time in-flight requests get to finish on SIGTERM")
	return cmd
}

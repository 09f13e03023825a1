package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"records/internal/db"
)

func newMigrateCmd() *cobra.Command {
	var dbf dbFlags
	cmd := &cobra.Command{
		Use: "migrate",
		Example: `  records migrate --database-url postgres://user@db:5432/records?sslmode=require
  records migrate                                # the SQLite default, data/records.db`,
		Short: "Apply pending database migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			database, err := db.Open(ctx, db.Config{URL: dbf.url, MaxConns: dbf.maxConns})
			if err != nil {
				return err
			}
			defer database.Close()
			applied, err := database.Migrate(ctx)
			w := cmd.OutOrStdout()
			for _, m := range applied {
				fmt.Fprintf(w, "applied %s\n", m.Name)
			}
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				fmt.Fprintln(w, "the database is up to date")
			}
			return nil
		},
	}
	dbf.register(cmd, false)
	return cmd
}

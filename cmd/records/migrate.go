package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"records/internal/db"
)

func newMigrateCmd() *cobra.Command {
	var (
		dbf         dbFlags
		reset, sure bool
	)
	cmd := &cobra.Command{
		Use: "migrate",
		Example: `  records migrate --database-url postgres://user@db:5432/records?sslmode=require
  records migrate                                # the SQLite default, data/records.db
  records migrate --reset                        # a development SQLite database, emptied and migrated afresh`,
		Short: "Apply pending database migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if reset {
				if db.IsPostgres(dbf.url) && !sure {
					return errors.New("--reset on PostgreSQL drops the database's schema and every row in it; add --yes if that is what you mean")
				}
				if err := db.Reset(ctx, dbf.url); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "the database was emptied")
			}
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
	cmd.Flags().BoolVar(&reset, "reset", false, "empty the database first (every row is lost): the way back for a development database after a schema experiment")
	cmd.Flags().BoolVar(&sure, "yes", false, "with --reset on PostgreSQL: yes, drop everything")
	return cmd
}

package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"records/internal/auth"
	"records/internal/db"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "token",
		Example: `  records token create --name warehouse --team acme
  records token list
  records token revoke 01a2…`,
		Short: "Create, list and revoke API tokens",
	}
	cmd.AddCommand(newTokenCreateCmd(), newTokenListCmd(), newTokenRevokeCmd())
	return cmd
}

func newTokenCreateCmd() *cobra.Command {
	var (
		dbf     dbFlags
		name    string
		scope   string
		team    string
		role    string
		subject string
		expires time.Duration
	)
	cmd := &cobra.Command{
		Use: "create",
		Example: `  records token create --name ci --scope read --expires 720h
  records token create --name desk --role agent --subject alice@example.com
  TOKEN=$(records token create --name me | tail -1)`,
		Short: "Create a token and print its secret, once, as the last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Absent, the token never expires; given, a lifetime of 0 or
			// less would make a token that is expired already.
			if cmd.Flags().Changed("expires") && expires <= 0 {
				return fmt.Errorf("--expires must be a lifetime above 0, e.g. 720h, not %s (leave it out for a token that never expires)", expires)
			}
			return dbf.with(cmd, func(ctx context.Context, database *db.DB) error {
				tok, secret, err := auth.NewStore(database, 0).CreateWith(ctx, auth.NewToken{
					Name: name, Scope: auth.Scope(scope), Team: team, TTL: expires, Role: role, Subject: subject})
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "created token %s (%s) for team %s (number %d), scope %s, role %s%s%s\n",
					tok.ID, tok.Name, tok.TeamName, tok.Team, tok.Scope, tok.Role, subjectOf(tok), expiry(tok))
				fmt.Fprintln(w, "the secret is shown only now; send it as Authorization: Bearer <secret>")
				fmt.Fprintln(w, secret)
				return nil
			})
		},
	}
	dbf.register(cmd, true)
	cmd.Flags().StringVar(&name, "name", "", "what the token is for (required)")
	cmd.Flags().StringVar(&scope, "scope", string(auth.Write), "read (reads only) or write")
	cmd.Flags().StringVar(&team, "team", auth.DefaultTeam, "the token's team, created on first use")
	cmd.Flags().StringVar(&role, "role", auth.AdminRole, "the token's role: admin (may do everything) or one the policies declare")
	cmd.Flags().StringVar(&subject, "subject", "", "who the role's policies see as $auth.sub (default: the token's id)")
	cmd.Flags().DurationVar(&expires, "expires", 0, "lifetime above 0, e.g. 720h (without it the token never expires)")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func subjectOf(t auth.Token) string {
	if t.Subject == "" {
		return ""
	}
	return ", subject " + t.Subject
}

func expiry(t auth.Token) string {
	if t.ExpiresAt == nil {
		return ""
	}
	return ", expires " + t.ExpiresAt.UTC().Format(time.RFC3339)
}

func newTokenListCmd() *cobra.Command {
	var dbf dbFlags
	cmd := &cobra.Command{
		Use:     "list",
		Example: `  records token list`,
		Short:   "List tokens (never their secrets)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return dbf.with(cmd, func(ctx context.Context, database *db.DB) error {
				toks, err := auth.NewStore(database, 0).List(ctx)
				if err != nil {
					return err
				}
				printTokens(cmd.OutOrStdout(), toks, time.Now())
				return nil
			})
		},
	}
	dbf.register(cmd, true)
	return cmd
}

func printTokens(out io.Writer, toks []auth.Token, now time.Time) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tTEAM\tSCOPE\tROLE\tCREATED\tEXPIRES\tSTATUS")
	for _, t := range toks {
		expires, status := "never", "active"
		if t.ExpiresAt != nil {
			expires = t.ExpiresAt.UTC().Format(time.RFC3339)
			if !now.Before(*t.ExpiresAt) {
				status = "expired"
			}
		}
		if t.RevokedAt != nil {
			status = "revoked"
		}
		fmt.Fprintf(w, "%s\t%s\t%s (%d)\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.TeamName, t.Team, t.Scope, t.Role+subjectOf(t),
			t.CreatedAt.UTC().Format(time.RFC3339), expires, status)
	}
	w.Flush()
}

func newTokenRevokeCmd() *cobra.Command {
	var dbf dbFlags
	cmd := &cobra.Command{
		Use:     "revoke ID",
		Example: `  records token revoke 01a20786-6a15-79b7-8dc7-e450e2bd386a`,
		Short:   "Revoke a token; servers stop accepting it within their token cache time (default 1s)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return dbf.with(cmd, func(ctx context.Context, database *db.DB) error {
				if err := auth.NewStore(database, 0).Revoke(ctx, args[0]); err != nil {
					return fmt.Errorf("revoking %s: %w", args[0], err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked token %s\n", args[0])
				return nil
			})
		},
	}
	dbf.register(cmd, true)
	return cmd
}

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
	"records/internal/envvar"
	"records/internal/guard"
	"records/internal/jwtauth"
	"records/internal/logging"
	"records/internal/policy"
	"records/internal/server"
	"records/internal/tracing"
	"records/internal/webhooks"
)

func newServeCmd() *cobra.Command {
	var (
		dbf      dbFlags
		cfg      = server.DefaultConfig()
		schedule string
		level    string
		proxies  string
		policies string
	)
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
			ctx := cmd.Context()
			if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
				return fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
			}
			if cfg.LogSample < 1 {
				return fmt.Errorf("--log-sample %d: use 1 (every request) or more", cfg.LogSample)
			}
			if schedule != "" {
				var err error
				if cfg.Webhooks.Schedule, err = webhooks.ParseSchedule(schedule); err != nil {
					return err
				}
			}
			var err error
			if cfg.TrustedProxies, err = guard.ParseProxies(proxies); err != nil {
				return fmt.Errorf("--trusted-proxies: %w", err)
			}
			if policies != "" {
				// A bad file stops the start, naming its line; server.New
				// checks it against the resources.
				if cfg.Policies, err = policy.Load(policies); err != nil {
					return fmt.Errorf("--policies:\n%w", err)
				}
			}
			if (cfg.JWT.Issuer != "" || cfg.JWT.JWKSURL != "") && cfg.JWT.Audience == "" {
				return fmt.Errorf("--jwt-audience is required with --oidc-issuer or --jwks-url")
			}
			tuneGC()
			logs := logging.NewBuffered(cmd.ErrOrStderr(), 200*time.Millisecond)
			defer logs.Close()
			log := logging.JSONAt(logs, cfg.LogLevel)
			stopTracing, err := tracing.Setup(ctx)
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
		},
	}
	dbf.register(cmd, true)
	cmd.Flags().StringVar(&cfg.Addr, "addr", envvar.Or("RECORDS_ADDR", cfg.Addr), "address to listen on (env RECORDS_ADDR)")
	cmd.Flags().DurationVar(&cfg.ReadHeaderTimeout, "header-timeout", cfg.ReadHeaderTimeout, "time a client may take to send its request headers")
	cmd.Flags().DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "time in-flight requests get to finish on SIGTERM")
	cmd.Flags().DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "time a whole request may take")
	cmd.Flags().Int64Var(&cfg.MaxBody, "max-body", cfg.MaxBody, "largest request body, in bytes (413 beyond)")
	cmd.Flags().Float64Var(&cfg.RateLimit, "rate-limit", cfg.RateLimit, "requests per second per token (429 beyond)")
	cmd.Flags().IntVar(&cfg.RateBurst, "rate-burst", cfg.RateBurst, "burst of requests per token above the rate")
	cmd.Flags().DurationVar(&cfg.IdempotencyTTL, "idempotency-ttl", cfg.IdempotencyTTL, "how long the answer to a write sent with an Idempotency-Key replays")
	cmd.Flags().DurationVar(&cfg.EventRetention, "event-retention", cfg.EventRetention, "how long events are kept for the event log, histories and webhooks (0 keeps them forever; never less than --idempotency-ttl)")
	cmd.Flags().DurationVar(&cfg.TrashRetention, "trash-retention", cfg.TrashRetention, "how long a deleted record stays in the trash, restorable, before it is erased for good (0 keeps the trash forever)")
	cmd.Flags().StringVar(&cfg.RedisURL, "redis-url", os.Getenv("REDIS_URL"),
		"Redis (redis://host:6379/0) keeping the per-token rate limit, and with read replicas each token's last write, across instances (env REDIS_URL; without it, each instance keeps its own)")
	cmd.Flags().StringArrayVar(&cfg.Replicas.URLs, "replica-url", nil,
		"a PostgreSQL read replica (postgres://…, a streaming hot standby) that reads of records may run on; repeat for several")
	cmd.Flags().DurationVar(&cfg.Replicas.MaxLag, "replica-max-lag", cfg.Replicas.MaxLag,
		"how far behind the primary a read replica may be and still serve reads")
	cmd.Flags().StringVar(&cfg.NATS.URL, "nats-url", envvar.Or("NATS_URL", ""),
		"NATS (nats://host:4222) to publish every event of the log to, on JetStream (env NATS_URL; without it, nothing is published)")
	cmd.Flags().StringVar(&cfg.NATS.Stream, "nats-stream", cfg.NATS.Stream,
		"the JetStream stream events are published to (made if missing, subjects records.>)")
	cmd.Flags().StringVar(&level, "log-level", "info", "least level logged: debug, info, warn or error (warn keeps server errors and warnings: the access line of every request answered below 500 is dropped)")
	cmd.Flags().IntVar(&cfg.LogSample, "log-sample", cfg.LogSample, "write the access line of one successful request in this many (errors are always logged)")
	cmd.Flags().StringVar(&schedule, "webhook-retry-schedule", "",
		"waits before each retry of a failed webhook delivery, comma-separated (default 5s,5m,30m,2h,5h,10h,10h: 8 attempts over about a day)")
	cmd.Flags().DurationVar(&cfg.Webhooks.Timeout, "webhook-timeout", cfg.Webhooks.Timeout,
		"time an endpoint has to answer a delivery with a 2xx")
	cmd.Flags().BoolVar(&cfg.Webhooks.AllowPrivate, "webhook-allow-private", false,
		"let webhooks reach loopback, private and link-local addresses (local development; never on a shared host)")
	cmd.Flags().DurationVar(&cfg.TokenCacheTTL, "token-cache", cfg.TokenCacheTTL, "how long a verified token is trusted before the database is asked again (a revocation takes effect within it)")
	cmd.Flags().StringVar(&policies, "policies", os.Getenv("RECORDS_POLICIES"),
		"the roles' policies file (env RECORDS_POLICIES; default: the specification's schema/policies.yaml, built in)")
	cmd.Flags().StringVar(&cfg.JWT.Issuer, "oidc-issuer", os.Getenv("RECORDS_OIDC_ISSUER"),
		"accept JWTs of this OpenID Connect issuer (its key set found by discovery; iss must equal it) (env RECORDS_OIDC_ISSUER)")
	cmd.Flags().StringVar(&cfg.JWT.JWKSURL, "jwks-url", os.Getenv("RECORDS_JWKS_URL"),
		"accept JWTs signed by the keys of this key set (JWKS), instead of --oidc-issuer (env RECORDS_JWKS_URL)")
	cmd.Flags().StringVar(&cfg.JWT.Audience, "jwt-audience", os.Getenv("RECORDS_JWT_AUDIENCE"),
		"the audience a JWT's aud must contain; required with --oidc-issuer or --jwks-url (env RECORDS_JWT_AUDIENCE)")
	cmd.Flags().StringVar(&cfg.JWT.TeamClaim, "jwt-team-claim", jwtauth.DefaultTeamClaim, "the JWT claim naming the caller's team (created on first use)")
	cmd.Flags().StringVar(&cfg.JWT.RoleClaim, "jwt-role-claim", jwtauth.DefaultRoleClaim,
		"the JWT claim naming the caller's role, or roles (the header Records-Role picks one; else the first)")
	cmd.Flags().StringVar(&proxies, "trusted-proxies", os.Getenv("RECORDS_TRUSTED_PROXIES"),
		"reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For names the client, for the brake on failed authentications (env RECORDS_TRUSTED_PROXIES)")
	return cmd
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

// tuneGC trades a little memory for throughput: the collector runs at twice
// the default heap growth (a few MiB more under load, about 7% more
// requests served), under a soft limit of 48 MiB that makes it work harder
// before memory nears what the service may use. GOGC and GOMEMLIMIT, when
// set, win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
}

package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"records/internal/envvar"
	"records/internal/guard"
	"records/internal/jwtauth"
	"records/internal/policy"
	"records/internal/server"
	"records/internal/webhooks"
)

// serveFlags are records serve's flags: the database's, the server's
// configuration they fill in directly, and those read into it by config.
type serveFlags struct {
	db       dbFlags
	cfg      server.Config
	schedule string
	level    string
	proxies  string
	policies string
}

// register defines the flags on cmd, their defaults the configuration's.
func (f *serveFlags) register(cmd *cobra.Command) {
	f.db.register(cmd, true)
	cmd.Flags().StringVar(&f.cfg.Addr, "addr", envvar.Or("RECORDS_ADDR", f.cfg.Addr), "address to listen on (env RECORDS_ADDR)")
	cmd.Flags().DurationVar(&f.cfg.ReadHeaderTimeout, "header-timeout", f.cfg.ReadHeaderTimeout, "time a client may take to send its request headers")
	cmd.Flags().DurationVar(&f.cfg.ShutdownTimeout, "shutdown-timeout", f.cfg.ShutdownTimeout, "time in-flight requests get to finish on SIGTERM")
	cmd.Flags().DurationVar(&f.cfg.RequestTimeout, "request-timeout", f.cfg.RequestTimeout, "time a whole request may take")
	cmd.Flags().Int64Var(&f.cfg.MaxBody, "max-body", f.cfg.MaxBody, "largest request body, in bytes (413 beyond)")
	cmd.Flags().Float64Var(&f.cfg.RateLimit, "rate-limit", f.cfg.RateLimit, "requests per second per token (429 beyond)")
	cmd.Flags().IntVar(&f.cfg.RateBurst, "rate-burst", f.cfg.RateBurst, "burst of requests per token above the rate")
	cmd.Flags().DurationVar(&f.cfg.IdempotencyTTL, "idempotency-ttl", f.cfg.IdempotencyTTL, "how long the answer to a write sent with an Idempotency-Key replays")
	cmd.Flags().DurationVar(&f.cfg.EventRetention, "event-retention", f.cfg.EventRetention, "how long events are kept for the event log, histories and webhooks (0 keeps them forever; never less than --idempotency-ttl)")
	cmd.Flags().DurationVar(&f.cfg.TrashRetention, "trash-retention", f.cfg.TrashRetention, "how long a deleted record stays in the trash, restorable, before it is erased for good (0 keeps the trash forever)")
	cmd.Flags().StringVar(&f.cfg.RedisURL, "redis-url", os.Getenv("REDIS_URL"),
		"Redis (redis://host:6379/0) keeping the per-token rate limit, and with read replicas each token's last write, across instances (env REDIS_URL; without it, each instance keeps its own)")
	cmd.Flags().StringArrayVar(&f.cfg.Replicas.URLs, "replica-url", nil,
		"a PostgreSQL read replica (postgres://…, a streaming hot standby) that reads of records may run on; repeat for several")
	cmd.Flags().DurationVar(&f.cfg.Replicas.MaxLag, "replica-max-lag", f.cfg.Replicas.MaxLag,
		"how far behind the primary a read replica may be and still serve reads")
	cmd.Flags().StringVar(&f.cfg.NATS.URL, "nats-url", envvar.Or("NATS_URL", ""),
		"NATS (nats://host:4222) to publish every event of the log to, on JetStream (env NATS_URL; without it, nothing is published)")
	cmd.Flags().StringVar(&f.cfg.NATS.Stream, "nats-stream", f.cfg.NATS.Stream,
		"the JetStream stream events are published to (made if missing, subjects records.>)")
	cmd.Flags().StringVar(&f.level, "log-level", "info", "least level logged: debug, info, warn or error (warn keeps server errors and warnings: the access line of every request answered below 500 is dropped)")
	cmd.Flags().IntVar(&f.cfg.LogSample, "log-sample", f.cfg.LogSample, "write the access line of one successful request in this many (errors are always logged)")
	cmd.Flags().StringVar(&f.schedule, "webhook-retry-schedule", "",
		"waits before each retry of a failed webhook delivery, comma-separated (default 5s,5m,30m,2h,5h,10h,10h: 8 attempts over about a day)")
	cmd.Flags().DurationVar(&f.cfg.Webhooks.Timeout, "webhook-timeout", f.cfg.Webhooks.Timeout,
		"time an endpoint has to answer a delivery with a 2xx")
	cmd.Flags().BoolVar(&f.cfg.Webhooks.AllowPrivate, "webhook-allow-private", false,
		"let webhooks reach loopback, private and link-local addresses (local development; never on a shared host)")
	cmd.Flags().DurationVar(&f.cfg.TokenCacheTTL, "token-cache", f.cfg.TokenCacheTTL, "how long a verified token is trusted before the database is asked again (a revocation takes effect within it)")
	cmd.Flags().StringVar(&f.policies, "policies", os.Getenv("RECORDS_POLICIES"),
		"the roles' policies file (env RECORDS_POLICIES; default: the specification's schema/policies.yaml, built in)")
	cmd.Flags().StringVar(&f.cfg.JWT.Issuer, "oidc-issuer", os.Getenv("RECORDS_OIDC_ISSUER"),
		"accept JWTs of this OpenID Connect issuer (its key set found by discovery; iss must equal it) (env RECORDS_OIDC_ISSUER)")
	cmd.Flags().StringVar(&f.cfg.JWT.JWKSURL, "jwks-url", os.Getenv("RECORDS_JWKS_URL"),
		"accept JWTs signed by the keys of this key set (JWKS), instead of --oidc-issuer (env RECORDS_JWKS_URL)")
	cmd.Flags().StringVar(&f.cfg.JWT.Audience, "jwt-audience", os.Getenv("RECORDS_JWT_AUDIENCE"),
		"the audience a JWT's aud must contain; required with --oidc-issuer or --jwks-url (env RECORDS_JWT_AUDIENCE)")
	cmd.Flags().StringVar(&f.cfg.JWT.TeamClaim, "jwt-team-claim", jwtauth.DefaultTeamClaim, "the JWT claim naming the caller's team (created on first use)")
	cmd.Flags().StringVar(&f.cfg.JWT.RoleClaim, "jwt-role-claim", jwtauth.DefaultRoleClaim,
		"the JWT claim naming the caller's role, or roles (the header Records-Role picks one; else the first)")
	cmd.Flags().StringVar(&f.proxies, "trusted-proxies", os.Getenv("RECORDS_TRUSTED_PROXIES"),
		"reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For names the client, for the brake on failed authentications (env RECORDS_TRUSTED_PROXIES)")
}

// config is the server's configuration: the flags read and checked, the
// first mistake named by its flag.
func (f *serveFlags) config() (server.Config, error) {
	cfg := f.cfg
	if err := cfg.LogLevel.UnmarshalText([]byte(f.level)); err != nil {
		return cfg, fmt.Errorf("--log-level %q: use debug, info, warn or error", f.level)
	}
	if cfg.LogSample < 1 {
		return cfg, fmt.Errorf("--log-sample %d: use 1 (every request) or more", cfg.LogSample)
	}
	if err := checkDurations(&cfg); err != nil {
		return cfg, err
	}
	if cfg.MaxBody < 1 {
		return cfg, fmt.Errorf("--max-body %d: use 1 byte or more", cfg.MaxBody)
	}
	if f.schedule != "" {
		var err error
		if cfg.Webhooks.Schedule, err = webhooks.ParseSchedule(f.schedule); err != nil {
			return cfg, err
		}
	}
	var err error
	if cfg.TrustedProxies, err = guard.ParseProxies(f.proxies); err != nil {
		return cfg, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if f.policies != "" {
		// A bad file stops the start, naming its line; server.New checks
		// it against the resources.
		if cfg.Policies, err = policy.Load(f.policies); err != nil {
			return cfg, fmt.Errorf("--policies:\n%w", err)
		}
	}
	if (cfg.JWT.Issuer != "" || cfg.JWT.JWKSURL != "") && cfg.JWT.Audience == "" {
		return cfg, fmt.Errorf("--jwt-audience is required with --oidc-issuer or --jwks-url")
	}
	return cfg, nil
}

// checkDurations refuses a time a flag gives that the server cannot run
// with: a timeout or a lifetime of none (every delivery, request or replay
// would fail at once, or a slow client hold a connection forever), or a
// negative one; the retentions and the token cache take 0 (forever, and
// no cache).
func checkDurations(cfg *server.Config) error {
	for _, d := range []struct {
		flag string
		v    time.Duration
		zero bool // 0 has a meaning
	}{
		{"--header-timeout", cfg.ReadHeaderTimeout, false},
		{"--request-timeout", cfg.RequestTimeout, false},
		{"--shutdown-timeout", cfg.ShutdownTimeout, true},
		{"--idempotency-ttl", cfg.IdempotencyTTL, false},
		{"--event-retention", cfg.EventRetention, true},
		{"--trash-retention", cfg.TrashRetention, true},
		{"--replica-max-lag", cfg.Replicas.MaxLag, false},
		{"--webhook-timeout", cfg.Webhooks.Timeout, false},
		{"--token-cache", cfg.TokenCacheTTL, true},
	} {
		switch {
		case d.v < 0:
			return fmt.Errorf("%s %s: a time cannot be negative", d.flag, d.v)
		case d.v == 0 && !d.zero:
			return fmt.Errorf("%s 0s: give a time above zero", d.flag)
		}
	}
	return nil
}

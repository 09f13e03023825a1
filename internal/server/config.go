package server

import (
	"log/slog"
	"time"

	"records/internal/engine"
	"records/internal/events"
	"records/internal/guard"
	"records/internal/jwtauth"
	"records/internal/policy"
	"records/internal/publish"
	"records/internal/query"
	"records/internal/replica"
	"records/internal/resources"
	"records/internal/webhooks"
)

// Config is everything the server needs to know, filled in by cmd/records.
type Config struct {
	// Addr is the host:port to listen on; port 0 picks a free port.
	Addr string
	// ReadHeaderTimeout bounds how long a client may take to send headers.
	ReadHeaderTimeout time.Duration
	// RequestTimeout bounds a whole request, body and database work included.
	RequestTimeout time.Duration
	// ShutdownTimeout bounds how long Close waits for in-flight requests.
	ShutdownTimeout time.Duration
	// MaxBody caps request bodies, in bytes.
	MaxBody int64
	// RateLimit is each token's sustained requests per second; RateBurst
	// the burst above it.
	RateLimit float64
	RateBurst int
	// TokenCacheTTL is how long a verified token is trusted without asking
	// the database again (and so how long a revocation takes to bite).
	TokenCacheTTL time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client, for the brake on failed authentications.
	TrustedProxies guard.Proxies
	// IdempotencyTTL is how long the answer to a write sent with an
	// Idempotency-Key replays.
	IdempotencyTTL time.Duration
	// SearchProbe decides when a search on SQLite looks a common word's
	// matches up record by record (query.DefaultProbe when unset).
	SearchProbe query.Probe
	// EventRetention is how long events are kept; 0 keeps them forever.
	EventRetention time.Duration
	// TrashRetention is how long a record stays in the trash before the
	// janitor erases it (DESIGN §17); 0 keeps the trash forever.
	TrashRetention time.Duration
	// JanitorEvery is how often the janitor sweeps (DefaultJanitorEvery
	// when 0); tests make it short.
	JanitorEvery time.Duration
	// Webhooks configures the delivery of events to webhooks.
	Webhooks webhooks.Config
	// RedisURL, when set, keeps the per-token rate limit in Redis, shared
	// by every instance using it, and with read replicas each token's last
	// write.
	RedisURL string
	// Replicas are the PostgreSQL read replicas reads of records may run
	// on; none: every read runs on the primary.
	Replicas replica.Config
	// NATS, when its URL is set, publishes every event of the log to NATS
	// JetStream.
	NATS publish.Config
	// LogLevel is the least level logged.
	LogLevel slog.Level
	// LogSample writes one successful request's access line in LogSample
	// (1: every request); errors are always logged.
	LogSample int
	// Policies are the roles' policies (DESIGN §15): the specification's
	// (schema/policies.yaml, SpecPolicies) unless --policies names a file.
	// New checks them against the resources and refuses to start on a
	// mistake, naming its file and line.
	Policies *policy.Policies
	// JWT, when it names a provider, admits the JWTs it signs beside API
	// tokens.
	JWT jwtauth.Config
}

// SpecPolicies are the policies of the specification, as the generator
// checked them into the resources package.
func SpecPolicies() *policy.Policies {
	p, err := policy.Parse(resources.PoliciesFile, []byte(resources.Policies))
	if err != nil {
		// The generator checked them: a failure is a build broken beyond running.
		panic("server: the specification's policies: " + err.Error())
	}
	return p
}

// DefaultConfig holds the documented defaults.
func DefaultConfig() Config {
	return Config{
		Addr:              "127.0.0.1:8080",
		ReadHeaderTimeout: 5 * time.Second,
		RequestTimeout:    30 * time.Second,
		ShutdownTimeout:   30 * time.Second,
		MaxBody:           1 << 20,
		RateLimit:         50,
		RateBurst:         100,
		TokenCacheTTL:     time.Second,
		IdempotencyTTL:    engine.DefaultIdempotencyTTL,
		EventRetention:    events.DefaultRetention,
		TrashRetention:    DefaultTrashRetention,
		JanitorEvery:      DefaultJanitorEvery,
		Webhooks:          webhooks.DefaultConfig(),
		Replicas:          replica.Config{MaxLag: replica.DefaultMaxLag},
		NATS:              publish.Config{Stream: publish.DefaultStream},
		LogLevel:          slog.LevelInfo,
		LogSample:         1,
		Policies:          SpecPolicies(),
	}
}

package server

import (
	"context"
	"fmt"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"records/internal/auth"
	"records/internal/engine"
	"records/internal/events"
	"records/internal/guard"
	"records/internal/jwtauth"
	"records/internal/publish"
	"records/internal/query"
	"records/internal/replica"
	"records/internal/resources"
	"records/internal/seal"
	"records/internal/webhooks"
	"records/rules"
)

// parts are the services the routes serve, built by wire.
type parts struct {
	limit  gin.HandlerFunc // the per-token rate limit
	tokens *auth.Store
	creds  guard.Credentials // API tokens, and JWTs when a provider is configured
	svc    *engine.Service
	log    *events.Log
	extra  *engine.Routes // the business rules' own routes
}

// wire builds the service from the configuration, top to bottom: the rate
// limit and the replicas, who may call, the operation engine and the
// business rules, then the event log, its stream, the publisher and the
// webhooks. It registers nothing.
func (s *Server) wire(ctx context.Context, cursors *query.Cursors) (*parts, error) {
	p := &parts{}
	if err := s.wireLimits(p); err != nil {
		return nil, err
	}
	if err := s.wireCallers(ctx, p); err != nil {
		return nil, err
	}
	if err := s.wireEngine(ctx, p, cursors); err != nil {
		return nil, err
	}
	if err := s.wireEvents(ctx, p, cursors); err != nil {
		return nil, err
	}
	return p, nil
}

// wireLimits sets the per-token rate limit, in Redis when one is
// configured, and the read replicas.
func (s *Server) wireLimits(p *parts) error {
	p.limit = guard.RateLimit(s.cfg.RateLimit, s.cfg.RateBurst)
	if s.cfg.RedisURL != "" {
		opts, err := redis.ParseURL(s.cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("--redis-url: %w", err)
		}
		s.redis = redis.NewClient(opts)
		p.limit = guard.SharedRateLimit(s.redis, s.cfg.RateLimit, s.cfg.RateBurst, s.log)
	}
	if len(s.cfg.Replicas.URLs) > 0 {
		set, err := replica.New(s.cfg.Replicas, s.db, s.redis, s.log)
		if err != nil {
			return err
		}
		s.replicas = set
		s.metrics.Register(set.Collectors()...)
	}
	return nil
}

// wireCallers sets the token store and the credentials a caller may show:
// API tokens, and JWTs when a provider is configured.
func (s *Server) wireCallers(ctx context.Context, p *parts) error {
	p.tokens = auth.NewStore(s.db, s.cfg.TokenCacheTTL)
	p.creds = guard.Credentials{Tokens: p.tokens}
	if s.cfg.JWT.Enabled() {
		teams := func(ctx context.Context, name string) (int, error) {
			t, err := p.tokens.Team(ctx, name)
			return t.ID, err
		}
		var err error
		if p.creds.JWT, err = jwtauth.New(ctx, s.cfg.JWT, teams); err != nil {
			return err
		}
	}
	return nil
}

// wireEngine builds the operation engine, describes the resources to it,
// installs the business rules and their routes, and checks the roles'
// policies against what it serves.
func (s *Server) wireEngine(ctx context.Context, p *parts, cursors *query.Cursors) error {
	answersKey, err := s.db.Key(ctx, "idempotency-answers", 32)
	if err != nil {
		return err
	}
	sealer, err := seal.New(answersKey)
	if err != nil {
		return err
	}
	p.svc = &engine.Service{
		DB:      s.db,
		MaxBody: s.cfg.MaxBody,
		// PostgreSQL interrupts reads at the request's deadline; SQLite
		// reads run to their end (see edge.Unbounded).
		InterruptReads: s.db.Postgres(),
		Dialect:        query.Dialect(s.db.Dialect),
		Cursors:        cursors,
		RequestTimeout: s.cfg.RequestTimeout,
		IdempotencyTTL: s.cfg.IdempotencyTTL,
		Sealer:         sealer,
		Probe:          s.cfg.SearchProbe,
	}
	if s.replicas != nil {
		p.svc.Reads = s.replicas
	}
	resources.Describe(p.svc)
	s.trash, s.records = p.svc.TrashTables(), p.svc
	businessRules := resources.NewRules()
	p.extra = &engine.Routes{}
	rules.Register(businessRules, p.extra)
	businessRules.Install(p.svc)
	if err := s.cfg.Policies.Check(p.svc.Catalog()); err != nil {
		return fmt.Errorf("policies:\n%w", err)
	}
	p.svc.Policies = s.cfg.Policies
	return nil
}

// wireEvents builds the event log (its ids keyed by the database), the
// live stream, the publisher to NATS when configured, and the webhooks.
func (s *Server) wireEvents(ctx context.Context, p *parts, cursors *query.Cursors) error {
	idsKey, err := s.db.Key(ctx, "event-ids", events.IDKeySize)
	if err != nil {
		return err
	}
	ids, err := events.NewIDs(idsKey)
	if err != nil {
		return err
	}
	p.log = events.NewLog(s.db, cursors, p.svc, ids)
	p.log.Logger = s.log
	p.svc.Events, p.svc.Logger = p.log, s.log
	p.log.Access = p.svc
	s.stream = events.DefaultStream(p.log, s.log)
	s.stream.Tokens = p.creds
	s.metrics.Register(p.log.Collectors()...)
	if s.cfg.NATS.URL != "" {
		if s.publisher, err = publish.New(s.cfg.NATS, s.db, p.log, s.log); err != nil {
			return err
		}
		s.metrics.Register(s.publisher.Collectors()...)
	}
	if s.hooks, err = webhooks.New(ctx, s.cfg.Webhooks, s.db, p.svc, p.log, cursors, s.log); err != nil {
		return err
	}
	s.metrics.Register(s.hooks.Collectors()...)
	return nil
}

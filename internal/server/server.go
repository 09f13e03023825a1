// Package server is the records service's HTTP server: the gin engine, its
// operational routes and its lifecycle. Open listens (so a bad address fails
// at once) and serves in the background; Close drains in-flight requests.
package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"records/internal/console"
	"records/internal/db"
	"records/internal/docs"
	"records/internal/edge"
	"records/internal/engine"
	"records/internal/events"
	"records/internal/guard"
	"records/internal/logging"
	"records/internal/metrics"
	"records/internal/problem"
	"records/internal/publish"
	"records/internal/query"
	"records/internal/replica"
	"records/internal/resources"
	"records/internal/spec"
	"records/internal/sqlitemutex"
	"records/internal/tracing"
	"records/internal/webhooks"
)

// Server serves the API over one database.
type Server struct {
	cfg     Config
	db      *db.DB
	log     *slog.Logger
	engine  *gin.Engine
	router  *edge.Router
	docs    *docs.Docs
	console *console.Console
	metrics *metrics.Metrics
	http    *http.Server
	ln      net.Listener
	done    chan error
	stop    chan struct{} // stops the janitor and the stream's watch
	// trash are the record tables, each parent before its children: the
	// order in which the janitor empties the trash.
	trash []string
	// records is the operation engine: the janitor runs its after-commit
	// rules for what it purges.
	records *engine.Service
	stream  *events.Stream
	hooks   *webhooks.Service
	// delivering closes when the webhook worker has stopped.
	delivering chan struct{}
	redis      *redis.Client      // nil without RedisURL
	replicas   *replica.Set       // nil without Replicas
	publisher  *publish.Publisher // nil without NATS.URL
	// publishing closes when the publisher has stopped.
	publishing chan struct{}
}

func init() { gin.SetMode(gin.ReleaseMode) }

// startTimeout bounds what New reads and makes in the database, at least.
const startTimeout = 30 * time.Second

// New builds a server writing its JSON log lines to logs; nothing listens
// until Open. It reads (or, on a new database, makes) the key that signs
// cursors, which every instance on the database shares.
func New(cfg Config, database *db.DB, logs io.Writer) (*Server, error) {
	s := &Server{cfg: cfg, db: database, log: logging.JSONAt(logs, cfg.LogLevel)}
	if err := sqlitemutex.Installed(); err != nil && !database.Postgres() {
		s.log.Warn("sqlite: its mutexes are the C library's, slower than the service's own", "error", err)
	}
	s.metrics = metrics.New(database.SQL, metrics.Counts{Statements: database.Statements, Transactions: database.Transactions})
	s.docs = docs.New(resources.OpenAPI)
	var err error
	if s.console, err = console.New(); err != nil {
		panic("server: preparing the console: " + err.Error())
	}
	// Starting is not a request: a short --request-timeout must not fail
	// the reading of the keys on a database slow to answer at first.
	ctx, cancel := context.WithTimeout(context.Background(), max(cfg.RequestTimeout, startTimeout))
	defer cancel()
	cursorKey, err := database.Key(ctx, "cursors", 32)
	if err != nil {
		return nil, err
	}
	parts, err := s.wire(ctx, query.NewCursors(cursorKey))
	if err != nil {
		return nil, err
	}
	s.engine, s.router = s.routes(parts)
	// slack is how long after a request's deadline the connection's own
	// deadlines fall.
	const slack = 5 * time.Second
	s.http = &http.Server{
		Handler:           s.engine,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		// The deadline middleware answers slow requests; these bound what
		// it cannot see: a body trickling in (answered 408), a client not
		// reading. Both end after the request's deadline, so that work
		// past it is answered 503 by the middleware: a read deadline
		// passing first would end the request's context as a hang-up does.
		ReadTimeout:  cfg.RequestTimeout + slack,
		WriteTimeout: cfg.RequestTimeout + 2*slack, // the 408 of a slow body goes out after its read
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState:    takeTurns(!database.Postgres(), func() int { return runtime.GOMAXPROCS(0) }, runtime.Gosched),
	}
	return s, nil
}

// takeTurns is the server's ConnState hook, the database in process
// (SQLite) or not: with one P and SQLite, a connection whose answer has
// gone out yields before it reads its next request, to the back of the
// runtime's global run queue, so that the connections are served in
// turn. procs is asked at each answer, not once at start: the runtime
// changes its Ps when the container's CPU limit changes (Go 1.25 and
// later), and a server started on one CPU may be given two. Without the
// yield, on one P kept busy, a connection whose next request is already
// there reads it at once and stays in the P's local queue,
// while those the runtime's monitor found ready wait in the global queue,
// served one goroutine in 61: one rare word's page in a hundred took
// 0.4-1.1 s at 32 connections, and a GET read its socket twice a request,
// the first read finding nothing (docs/performance.md, "connections served
// in turn on one P"). With more Ps it does not yield, which would only
// bounce goroutines between them (a GET's p99 doubled at two). On
// PostgreSQL each request waits on the network anyway, and the yield sent
// it through the global queue twice (a GET's p99 went from 5 to 12 ms), so
// the hook is nil there. yield is runtime.Gosched but in tests.
func takeTurns(inProcess bool, procs func() int, yield func()) func(net.Conn, http.ConnState) {
	if !inProcess {
		return nil
	}
	return func(_ net.Conn, st http.ConnState) {
		if st == http.StateIdle && procs() == 1 {
			yield()
		}
	}
}

// Handler is the server's HTTP handler, for tests that drive it in process.
func (s *Server) Handler() http.Handler { return s.engine }

// Routes lists every route the server answers, for tests and documents.
func (s *Server) Routes() []edge.Route { return s.router.Routes() }

// routes puts every route on a new gin engine: the middleware every request
// passes, the public routes, the resources' operations, the event log and
// the webhooks.
func (s *Server) routes(p *parts) (*gin.Engine, *edge.Router) {
	e := gin.New()
	// /x and /x/ are distinct routes of the contract: never redirect between them.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	e.Use(edge.RequestID)
	if tracing.Enabled() {
		e.Use(edge.Trace)
	}
	e.Use(edge.AccessLog(s.log, s.metrics.Observe, s.cfg.LogSample), edge.Recover)
	guards := edge.Guards{
		Authenticate: guard.Authenticate(p.creds, s.cfg.RequestTimeout, s.cfg.TrustedProxies),
		RateLimit:    p.limit,
		RequireWrite: guard.RequireWrite,
		Admin:        guard.RequireAdmin,
		Deadline:     edge.Deadline(s.cfg.RequestTimeout),
	}
	if s.replicas != nil {
		guards.Written = s.replicas.AfterWrite
	}
	r := edge.NewRouter(e, guards)
	r.Public(spec.PathMetrics, gin.WrapH(s.metrics.Handler()))
	r.Public(spec.PathHealth, s.healthz)
	r.Public(spec.PathReady, s.readyz)
	r.Public(spec.PathOpenAPI, s.docs.Document)
	r.Public(spec.PathDocs, s.docs.Page)
	// /docs/ leads to the page at /docs, whose links are relative to it;
	// /console/ to /console. GET and HEAD, as every page answers.
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		e.Handle(method, spec.PathDocs+"/", func(c *gin.Context) { c.Redirect(http.StatusMovedPermanently, spec.PathDocs) })
		e.Handle(method, spec.PathConsole+"/", console.Redirect(spec.PathConsole))
	}
	r.Public(spec.PathDocsFile, func(c *gin.Context) {
		s.docs.Asset(c, func(c *gin.Context) { edge.Fail(c, problem.New(problem.NotFound, "no such file")) })
	})
	r.Public(spec.PathConsole, s.console.Page)
	r.Public(spec.PathConsoleFile, func(c *gin.Context) {
		s.console.Asset(c, func(c *gin.Context) { edge.Fail(c, problem.New(problem.NotFound, "no such file")) })
	})
	resources.Register(r, p.svc)
	p.extra.Register(r)
	for _, plural := range slices.Sorted(maps.Keys(p.svc.Resources())) {
		path := "/v1/" + plural + "/aggregate"
		h := p.svc.Aggregate(plural)
		r.Handle(edge.Route{Method: http.MethodGet, Path: path, Operation: "Aggregate " + plural, Kind: spec.List, Resource: plural}, h)
		if slices.Contains(spec.AggregatePosts, plural) {
			r.Handle(edge.Route{Method: http.MethodPost, Path: path, Operation: "Aggregate " + plural, Kind: spec.List, Resource: plural}, h)
		}
	}
	r.Handle(edge.Route{Method: http.MethodGet, Path: spec.PathMe, Operation: "Me", Kind: spec.Get, Resource: "Me"}, p.svc.Me)
	p.log.Register(r, s.stream)
	s.hooks.Register(r)
	return e, r
}

// healthz answers while the process is up.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers 200 while the database answers and takes writes, 503
// otherwise: while no writable primary answers, during a failover too.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Writable(ctx); err != nil {
		edge.Fail(c, &problem.Error{Code: problem.Unavailable, Detail: "no writable database answers", RetryAfter: 5, Cause: err})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}

// Open listens on the configured address and serves in the background.
func (s *Server) Open() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	s.done = make(chan error, 1)
	s.Start()
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return nil
}

// Start starts the server's background work — the janitor, the event
// stream's watch, webhook delivery — which Close stops. Open starts it;
// tests that serve through Handler call it themselves.
func (s *Server) Start() {
	s.stop = make(chan struct{})
	go s.janitor(s.stop)
	go s.stream.Watch(s.stop)
	if s.replicas != nil {
		go s.replicas.Run(s.stop)
	}
	if s.publisher != nil {
		s.publishing = make(chan struct{})
		go func() { defer close(s.publishing); s.publisher.Run(s.stop) }()
	}
	s.delivering = make(chan struct{})
	go func() { defer close(s.delivering); s.hooks.Run(s.stop) }()
}

// Addr is the address the server listens on, with the port it picked.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Done reports the serving loop's end: nil after Close, an error if serving failed.
func (s *Server) Done() <-chan error { return s.done }

// Close stops accepting connections and waits, up to the shutdown timeout,
// for in-flight requests to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
	var err error
	if s.ln != nil {
		err = s.http.Shutdown(ctx)
	}
	if s.delivering != nil {
		select {
		case <-s.delivering:
		case <-ctx.Done():
		}
	}
	if s.publishing != nil {
		select {
		case <-s.publishing:
		case <-ctx.Done():
		}
	}
	if s.publisher != nil {
		s.publisher.Close()
	}
	if s.replicas != nil {
		err = errors.Join(err, s.replicas.Close())
	}
	if s.redis != nil {
		err = errors.Join(err, s.redis.Close())
	}
	return err
}

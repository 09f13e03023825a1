// Package server is the records service's HTTP server: the gin engine, its
// operational routes and its lifecycle. Open listens (so a bad address fails
// at once) and serves in the background; Close drains in-flight requests.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/db"
)

// Config is everything the server needs to know, filled in by cmd/records.
type Config struct {
	// Addr is the host:port to listen on; port 0 picks a free port.
	Addr string
	// ReadHeaderTimeout bounds how long a client may take to send headers.
	ReadHeaderTimeout time.Duration
	// ShutdownTimeout bounds how long Close waits for in-flight requests.
	ShutdownTimeout time.Duration
}

// DefaultConfig holds the documented defaults.
func DefaultConfig() Config {
	return Config{
		Addr:              "127.0.0.1:8080",
		ReadHeaderTimeout: 5 * time.Second,
		ShutdownTimeout:   30 * time.Second,
	}
}

// Server serves the API over one database.
type Server struct {
	cfg    Config
	db     *db.DB
	log    *slog.Logger
	engine *gin.Engine
	http   *http.Server
	ln     net.Listener
	done   chan error
}

func init() { gin.SetMode(gin.ReleaseMode) }

// New builds a server; nothing listens until Open.
func New(cfg Config, database *db.DB, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, db: database, log: log}
	s.engine = s.routes()
	s.http = &http.Server{
		Handler:           s.engine,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return s
}

// Handler is the server's HTTP handler, for tests that drive it in process.
func (s *Server) Handler() http.Handler { return s.engine }

func (s *Server) routes() *gin.Engine {
	e := gin.New()
	// /x and /x/ are distinct routes of the contract: never redirect between them.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	return e
}

// healthz answers while the process is up.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers 200 while the database answers, 503 otherwise.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		s.log.Warn("readiness check failed", "err", err)
		c.Header("Retry-After", "5")
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable"})
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
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return nil
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
	return s.http.Shutdown(ctx)
}

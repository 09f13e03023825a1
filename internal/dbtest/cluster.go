package dbtest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"records/internal/scratch"
)

// Cluster is a throw-away PostgreSQL server of its own (scratch.Cluster)
// that a test may stop, restart and kill.
type Cluster struct {
	tb testing.TB
	c  *scratch.Cluster
}

// NewCluster starts a throw-away PostgreSQL cluster, removed when tb ends.
// Without PostgreSQL's server programs the test is skipped, or under CI fails.
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	c, err := scratch.NewCluster()
	switch {
	case errors.Is(err, scratch.ErrNoPostgres) && os.Getenv("CI") == "":
		tb.Skip(err)
	case err != nil:
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Remove() })
	return &Cluster{tb: tb, c: c}
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() {
	c.tb.Helper()
	if err := c.c.Start(); err != nil {
		c.tb.Fatal(err)
	}
}

// Stop stops the server: mode is smart, fast or immediate (a crash).
func (c *Cluster) Stop(mode string) {
	c.tb.Helper()
	if err := c.c.Stop(mode); err != nil {
		c.tb.Fatal(err)
	}
}

// Standby makes and starts a streaming standby of the cluster (see
// scratch.Cluster.Standby), removed when tb ends.
func (c *Cluster) Standby(delay time.Duration) *Cluster {
	c.tb.Helper()
	s, err := c.c.Standby(delay)
	if err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() { s.Remove() })
	return &Cluster{tb: c.tb, c: s}
}

// Promote makes a standby the primary.
func (c *Cluster) Promote() {
	c.tb.Helper()
	if err := c.c.Promote(); err != nil {
		c.tb.Fatal(err)
	}
}

// Port is the port the server listens on, at 127.0.0.1.
func (c *Cluster) Port() int { return c.c.Port() }

// URL is the URL of a database of the cluster, made on first use.
func (c *Cluster) URL(name string) string {
	c.tb.Helper()
	u, err := c.c.URL(context.Background(), name)
	if err != nil {
		c.tb.Fatal(err)
	}
	return u
}

package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Cluster is a throw-away PostgreSQL server of its own — initdb in a
// temporary folder, a free port — that a test may stop, restart and kill.
type Cluster struct {
	tb   testing.TB
	bin  string // the folder of initdb, pg_ctl, postgres
	dir  string // the data folder
	port int
	// asUser runs the server's commands as this user when the test runs as
	// root (PostgreSQL refuses to run as root).
	asUser string
}

// NewCluster starts a throw-away PostgreSQL cluster, stopped when tb ends.
// Without PostgreSQL's server programs the test is skipped, or under CI fails.
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		if os.Getenv("CI") != "" {
			tb.Fatal("PostgreSQL's server programs (initdb, pg_ctl) are not installed, and CI requires them")
		}
		tb.Skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
	}
	sort.Strings(bins)
	c := &Cluster{tb: tb, bin: filepath.Dir(bins[len(bins)-1])}
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		c.asUser = "postgres"
	}
	dir, err := os.MkdirTemp("", "records-cluster-")
	if err != nil {
		tb.Fatal(err)
	}
	c.dir = filepath.Join(dir, "data")
	tb.Cleanup(func() {
		c.run("pg_ctl", "-D", c.dir, "stop", "-m", "immediate")
		os.RemoveAll(dir)
	})
	if c.asUser != "" {
		c.mustRun("", "chown", c.asUser, dir)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.mustRun(c.bin, "initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	c.Start()
	return c
}

func (c *Cluster) command(bin, name string, args ...string) *exec.Cmd {
	if bin != "" {
		name = filepath.Join(bin, name)
	}
	if c.asUser != "" && bin != "" {
		return exec.Command("runuser", append([]string{"-u", c.asUser, "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	return c.command(c.bin, name, args...).CombinedOutput()
}

func (c *Cluster) mustRun(bin, name string, args ...string) {
	c.tb.Helper()
	if out, err := c.command(bin, name, args...).CombinedOutput(); err != nil {
		c.tb.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// options are the server's: its port, no Unix socket, and the speed a
// throw-away cluster can afford (no fsync).
func (c *Cluster) options() string {
	return fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200", c.port)
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() {
	c.tb.Helper()
	c.mustRun(c.bin, "pg_ctl", "-D", c.dir, "-o", c.options(), "-l", filepath.Join(filepath.Dir(c.dir), "log"), "-w", "start")
}

// Stop stops the server: mode is smart, fast or immediate (a crash).
func (c *Cluster) Stop(mode string) {
	c.tb.Helper()
	c.mustRun(c.bin, "pg_ctl", "-D", c.dir, "-m", mode, "-w", "stop")
}

// URL is the URL of a database of the cluster, made on first use.
func (c *Cluster) URL(name string) string {
	c.tb.Helper()
	admin := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	db, err := sql.Open("postgres", admin)
	if err != nil {
		c.tb.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		c.tb.Fatal(err)
	}
	if !exists {
		if _, err := db.ExecContext(ctx, "CREATE DATABASE "+strconv.Quote(name)); err != nil {
			c.tb.Fatal(err)
		}
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", c.port, name)
}

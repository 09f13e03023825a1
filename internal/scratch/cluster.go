package scratch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
)

// ErrNoPostgres reports that PostgreSQL's server programs are not installed.
var ErrNoPostgres = errors.New("PostgreSQL's server programs (initdb, pg_ctl) are not installed; " +
	"install them (Debian: apt-get install postgresql) or name a PostgreSQL with --dev-postgres-url")

// Cluster is a throw-away PostgreSQL server of its own: initdb in a
// temporary folder, a free port, no fsync. Tests stop, restart and kill it;
// the generator diffs migrations in it when no PostgreSQL is at hand.
type Cluster struct {
	bin  string // the folder of initdb, pg_ctl, postgres
	root string // the temporary folder
	dir  string // the data folder
	port int
	// asUser runs the server's programs as this user when the process is
	// root (PostgreSQL refuses to run as root).
	asUser string
}

// NewCluster makes and starts a cluster; Remove stops it and deletes it.
func NewCluster() (*Cluster, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		return nil, ErrNoPostgres
	}
	sort.Strings(bins)
	c := &Cluster{bin: filepath.Dir(bins[len(bins)-1])}
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		c.asUser = "postgres"
	}
	root, err := os.MkdirTemp("", "records-postgres-")
	if err != nil {
		return nil, err
	}
	c.root, c.dir = root, filepath.Join(root, "data")
	if c.asUser != "" {
		if out, err := exec.Command("chown", c.asUser, root).CombinedOutput(); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	if err := c.run("initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := c.Start(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) run(name string, args ...string) error {
	prog := filepath.Join(c.bin, name)
	cmd := exec.Command(prog, args...)
	if c.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.asUser, "--", prog}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	return nil
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() error {
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200 -c max_prepared_transactions=10", c.port)
	return c.run("pg_ctl", "-D", c.dir, "-o", opts, "-l", filepath.Join(c.root, "log"), "-w", "start")
}

// Stop stops the server: mode is smart, fast or immediate (a crash).
func (c *Cluster) Stop(mode string) error {
	return c.run("pg_ctl", "-D", c.dir, "-m", mode, "-w", "stop")
}

// Remove stops the server, if it runs, and deletes its files.
func (c *Cluster) Remove() error {
	_ = c.run("pg_ctl", "-D", c.dir, "-m", "immediate", "-w", "stop")
	return os.RemoveAll(c.root)
}

// URL is the URL of a database of the cluster, made on first use.
func (c *Cluster) URL(ctx context.Context, name string) (string, error) {
	admin := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	if err := EnsureDatabase(ctx, admin, name, ""); err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", c.port, name), nil
}

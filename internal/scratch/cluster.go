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
	"strconv"
	"time"
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
	if err := c.place(); err != nil {
		return nil, err
	}
	if err := c.run("initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		os.RemoveAll(c.root)
		return nil, err
	}
	if err := c.Start(); err != nil {
		os.RemoveAll(c.root)
		return nil, err
	}
	return c, nil
}

// place gives the cluster a temporary folder, which the server's user
// owns, and a free port.
func (c *Cluster) place() error {
	root, err := os.MkdirTemp("", "records-postgres-")
	if err != nil {
		return err
	}
	c.root, c.dir = root, filepath.Join(root, "data")
	if c.asUser != "" {
		if out, err := exec.Command("chown", c.asUser, root).CombinedOutput(); err != nil {
			os.RemoveAll(root)
			return fmt.Errorf("chown: %v: %s", err, out)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(root)
		return err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	return nil
}

// Standby makes and starts a streaming standby of c, a hot standby that
// answers reads: a base backup of c (pg_basebackup -R, which configures
// the streaming), applying what it receives delay late (0: at once).
// Remove stops it and deletes it; Promote makes it a primary.
func (c *Cluster) Standby(delay time.Duration) (*Cluster, error) {
	s := &Cluster{bin: c.bin, asUser: c.asUser}
	if err := s.place(); err != nil {
		return nil, err
	}
	if err := s.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", "postgres",
		"-D", s.dir, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast"); err != nil {
		os.RemoveAll(s.root)
		return nil, err
	}
	if delay > 0 {
		conf := fmt.Sprintf("recovery_min_apply_delay = '%dms'\n", delay.Milliseconds())
		f, err := os.OpenFile(filepath.Join(s.dir, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(conf)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			os.RemoveAll(s.root)
			return nil, err
		}
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(s.root)
		return nil, err
	}
	return s, nil
}

// Promote makes a standby the primary, and waits until it takes writes.
func (c *Cluster) Promote() error { return c.run("pg_ctl", "-D", c.dir, "-w", "promote") }

// Port is the port the server listens on, at 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

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

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"records/internal/dbtest"
)

// TestMain lets a test run this package's binary as recordsgen itself
// (asRecordsgen), sparing a build of it.
func TestMain(m *testing.M) {
	if os.Getenv("RECORDSGEN_TEST_AS_MAIN") == "1" {
		os.Exit(Do(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// asRecordsgen is a command running recordsgen args in dir.
func asRecordsgen(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "RECORDSGEN_TEST_AS_MAIN=1"), env...)
	return cmd
}

// The watch loop end to end, on a copy of the repository and SQLite: a
// member added to a schema is served; a syntax error is reported with its
// file and line while the previous server goes on answering; the fix is
// served; an interrupt stops the server with the loop.
func TestDevLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the service from a copy of the repository")
	}
	dbtest.RequirePostgres(t) // each member added writes a PostgreSQL migration too
	dir := copyRepo(t)
	addr := freeAddr(t)
	doc := "http://" + addr + "/v1/openapi.json"
	out := devLog(filepath.Join(t.TempDir(), "dev.log"))
	dev := asRecordsgen(dir, []string{"RECORDSGEN_DEV_POSTGRES_URL=" + dbtest.PostgresURL()},
		"dev", "--", "--addr", addr, "--database-url", "sqlite:"+filepath.Join(dir, "data", "dev.db"), "--log-level", "warn")
	f, err := os.Create(string(out))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dev.Stdout, dev.Stderr = f, f
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- dev.Wait() }()
	t.Cleanup(func() {
		dev.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("recordsgen dev printed:\n%s", out.String())
		}
	})

	// The first build of a copy may compile every package of the project:
	// 102 s alone, past 5 minutes once beside three benchmarking processes
	// on two cores. The bounds catch a loop that hangs, not a slow one.
	waitFor(t, exited, 10*time.Minute, "the first server", func() bool { return served(doc, `"email"`) })

	customer := filepath.Join(dir, "schema", "customer.go")
	edit(t, customer, `text("activationDate"),`, `text("activationDate"),
		text("loyalty_tier"),`)
	waitFor(t, exited, 6*time.Minute, "the new member", func() bool { return served(doc, `"loyalty_tier"`) })

	reported := strings.Count(out.String(), "dev: regenerating failed")
	edit(t, customer, `text("loyalty_tier"),`, `text("loyalty_tier"),
		text("second_member")),`)
	line := lineOf(t, customer, `text("second_member")),`)
	waitFor(t, exited, 4*time.Minute, "the mistake reported", func() bool {
		return strings.Count(out.String(), "dev: regenerating failed") > reported
	})
	if want := fmt.Sprintf("schema/customer.go:%d:", line); !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "syntax error") {
		t.Fatalf("the syntax error must be reported at %s", want)
	}
	if !served(doc, `"loyalty_tier"`) {
		t.Fatal("the previous server stopped answering after a mistake")
	}

	edit(t, customer, `text("second_member")),`, `text("second_member"),`)
	waitFor(t, exited, 6*time.Minute, "the fixed edit", func() bool { return served(doc, `"second_member"`) })

	// An interrupt (Ctrl-C) stops the loop and its server.
	dev.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("recordsgen dev ended with %v after an interrupt", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("recordsgen dev did not stop after an interrupt")
	}
	if _, err := plain.Get(doc); err == nil {
		t.Fatal("the server outlived recordsgen dev")
	}
}

// waitFor polls cond until it holds, failing the test if dev exits or
// within is over.
func waitFor(t *testing.T, exited chan error, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("waiting for %s: recordsgen dev exited: %v", what, err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within %s", what, within)
		}
	}
}

// plain makes every request on a new connection, so none outlives a
// restarted server.
var plain = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// served tells whether url answers 200 with a body containing want.
func served(url, want string) bool {
	resp, err := plain.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == 200 && bytes.Contains(b, []byte(want))
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// lineOf is the number of the line of file containing s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, s) {
			return i + 1
		}
	}
	t.Fatalf("%s does not contain %q", file, s)
	return 0
}

// devLog is the file recordsgen dev writes to, read while it runs.
type devLog string

func (l devLog) String() string {
	b, _ := os.ReadFile(string(l))
	return string(b)
}

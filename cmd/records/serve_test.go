package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds the records command into a temporary folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "records")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var servingLine = regexp.MustCompile(`serving on (http://\S+)`)

// startServe runs `records serve` on a free port and returns its base URL
// once it is listening.
func startServe(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case base := <-found:
		return cmd, base
	case <-time.After(60 * time.Second):
		t.Fatal("records serve did not start listening")
		return nil, ""
	}
}

func TestServeAnswersHealthAndStopsOnSIGTERM(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "nested", "records.db") // the folder is created
	cmd, base := startServe(t, bin, "--database-url", "sqlite:"+dbFile)

	for path, want := range map[string]string{"/healthz": `"ok"`, "/readyz": `"ready"`} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	if _, err := os.Stat(dbFile); err != nil {
		t.Fatalf("the SQLite file was not created: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("records serve did not exit cleanly on SIGTERM: %v", err)
	}
}

func TestServeRefusesABadAddress(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "serve", "--addr", "256.0.0.1:99999",
		"--database-url", "sqlite:"+filepath.Join(t.TempDir(), "x.db")).CombinedOutput()
	if err == nil {
		t.Fatalf("serve on an impossible address must fail at once; output:\n%s", out)
	}
}

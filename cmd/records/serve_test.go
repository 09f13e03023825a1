package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"records/internal/dbtest"
	"records/internal/migrate"
	"records/internal/migrations"
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
	cmd, base, _ := startServeOutput(t, bin, args...)
	return cmd, base
}

// startServeOutput is startServe, also returning what serve printed before
// it listened.
func startServeOutput(t *testing.T, bin string, args ...string) (*exec.Cmd, string, []string) {
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
	var printed []string
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
			printed = append(printed, sc.Text())
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case base := <-found:
		return cmd, base, printed
	case <-time.After(60 * time.Second):
		t.Fatal("records serve did not start listening")
		return nil, "", nil
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

func TestServePrintsAFirstTokenOnce(t *testing.T) {
	bin := buildBinary(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	cmd, base, printed := startServeOutput(t, bin, "--database-url", url)
	if len(printed) == 0 || !strings.HasPrefix(printed[len(printed)-1], "rk_") {
		t.Fatalf("a first serve must print a token's secret: %q", printed)
	}
	secret := printed[len(printed)-1]
	req, _ := http.NewRequest("GET", base+"/v1/customers", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the printed token must work: %v %v", resp, err)
	}
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	_, _, printed = startServeOutput(t, bin, "--database-url", url)
	for _, line := range printed {
		if strings.HasPrefix(line, "rk_") {
			t.Fatal("a second serve printed a token again")
		}
	}
}

// On SIGTERM the server stops accepting, lets a request in flight finish,
// then exits cleanly.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	bin := buildBinary(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	cmd, base, printed := startServeOutput(t, bin, "--database-url", url)
	secret := printed[len(printed)-1]

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"email":"late@example.com"}`
	fmt.Fprintf(conn, "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", secret, len(body), body[:10])
	time.Sleep(200 * time.Millisecond) // the server is reading the body
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("a shutting-down server accepted a new connection")
	}
	fmt.Fprint(conn, body[10:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v", err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the in-flight request: %d", resp.StatusCode)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not exit cleanly: %v", err)
	}
}

// With its database unreachable at start-up, serve exits at once with an
// error that says so (a supervisor restarts it), rather than serving 503s.
func TestServeExitsWhenTheDatabaseIsDown(t *testing.T) {
	bin := buildBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	start := time.Now()
	out, err := exec.Command(bin, "serve", "--addr", "127.0.0.1:0",
		"--database-url", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/records?sslmode=disable&connect_timeout=2", port)).CombinedOutput()
	if err == nil {
		t.Fatalf("serve started without its database:\n%s", out)
	}
	if !strings.Contains(string(out), "connecting to postgres://") || strings.Contains(string(out), "panic") {
		t.Fatalf("the error must say the database could not be reached:\n%s", out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("serve took %v to give up", d)
	}
}

// Three instances started at once on one new PostgreSQL database migrate it
// once (an advisory lock) and all serve.
func TestThreeInstancesMigrateOnce(t *testing.T) {
	bin := buildBinary(t)
	url := dbtest.URL(t, migrate.Postgres)
	var wg sync.WaitGroup
	bases := make([]string, 3)
	for i := range bases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, bases[i] = startServe(t, bin, "--database-url", url)
		}()
	}
	wg.Wait()
	for _, base := range bases {
		resp, err := http.Get(base + "/readyz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("an instance is not ready: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	pool, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var versions, distinct int
	if err := pool.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&versions, &distinct); err != nil {
		t.Fatal(err)
	}
	set, _ := migrations.For(migrate.Postgres)
	if versions != len(set) || distinct != len(set) {
		t.Fatalf("schema_migrations holds %d rows (%d versions); want each of the %d migrations once", versions, distinct, len(set))
	}
}

func TestServeExportsSpansAndRefusesTracingVariablesItCannotUse(t *testing.T) {
	bin := buildBinary(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "x.db")

	out, err := exec.Command("env", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317",
		bin, "serve", "--addr", "127.0.0.1:0", "--database-url", url).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc") {
		t.Fatalf("serve must stop at start naming the variable; err %v, output:\n%s", err, out)
	}

	var mu sync.Mutex
	var posts []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Key")+" "+fmt.Sprint(strings.Contains(string(body), "GET /healthz")))
		mu.Unlock()
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-key=k%201")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	cmd, base := startServe(t, bin, "--database-url", url)
	if resp, err := http.Get(base + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not exit cleanly: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, p := range posts {
		if !strings.HasPrefix(p, "/v1/traces application/x-protobuf k 1 ") {
			t.Fatalf("a request to the collector: %q", p)
		}
		found = found || strings.HasSuffix(p, "true")
	}
	if !found {
		t.Fatalf("no span of GET /healthz reached the collector before serve exited: %q", posts)
	}
}

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"records/client"
	"records/internal/dbtest"
	"records/internal/migrate"
)

// The documents whose shell examples are run, from the repository's root.
var documented = []string{"README.md", "docs/api.md"}

// runsUntilStopped marks an example that loops until its user stops it
// (a follower of the event log): it is run for a few seconds and must
// still be running, without a failure, when stopped.
const runsUntilStopped = "<!-- example: runs until stopped -->"

// An example is a shell block of a document that calls the API.
type example struct {
	doc    string
	line   int // of its opening fence
	script string
	loops  bool
}

// examples reads the ```sh blocks of the document that call the API with
// curl.
func examples(t *testing.T, doc string) []example {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	var cur *example
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &example{doc: doc, line: n, loops: strings.TrimSpace(prev) == runsUntilStopped}
		case cur != nil && strings.TrimSpace(line) == "```":
			if strings.Contains(cur.script, "curl ") {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.script += line + "\n"
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// answers counts what the server answered while an example ran.
type answers struct {
	mu       sync.Mutex
	requests int
	failures []string // 5xx answers, "METHOD /path: status"
}

// fail notes a server error. It runs as the status line is written, before
// the client can have its answer and end the example.
func (a *answers) fail(r *http.Request, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failures = append(a.failures, fmt.Sprintf("%s %s: %d", r.Method, r.URL.Path, status))
}

func (a *answers) take() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, f := a.requests, a.failures
	a.requests, a.failures = 0, nil
	return n, f
}

// statusWriter notes a server error in seen as its status line is written.
type statusWriter struct {
	http.ResponseWriter
	r    *http.Request
	seen *answers
}

func (w *statusWriter) WriteHeader(code int) {
	if code >= 500 {
		w.seen.fail(w.r, code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes the stream's flushes on.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Every curl example of the README and docs/api.md runs as written (but
// for the server's address and the token) against a real server: each
// reaches the server, exits 0 (the loops run until stopped), and no answer
// is a server error. The records the examples name (r-1, li-1, c-1) exist.
func TestDocumentedExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed to run the documents' examples: %v", tool, err)
			}
			t.Skipf("%s is not installed: the documents' examples are not run", tool)
		}
	}
	var all []example
	for _, doc := range documented {
		all = append(all, examples(t, doc)...)
	}
	if len(all) < 10 {
		t.Fatalf("found %d examples calling the API; the documents have more", len(all))
	}
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) { runExamples(t, newEnv(t, d), all) })
	}
}

// runExamples runs every example in turn against e's server, through a
// proxy that counts its answers.
func runExamples(t *testing.T, e *env, all []example) {
	{
		seedDocumented(t, e)
		seen := &answers{}
		inner, _ := url.Parse(e.base)
		forward := httputil.NewSingleHostReverseProxy(inner)
		forward.FlushInterval = -1 // streams as they come
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Counted before the answer: curl may end the example as soon
			// as it has it.
			seen.mu.Lock()
			seen.requests++
			seen.mu.Unlock()
			forward.ServeHTTP(&statusWriter{ResponseWriter: w, r: r, seen: seen}, r)
		}))
		t.Cleanup(proxy.Close)
		addr := strings.TrimPrefix(proxy.URL, "http://")
		dir := t.TempDir()
		for _, ex := range all {
			script := strings.ReplaceAll(ex.script, "localhost:8080", addr)
			// The README's placeholder for the secret `make run` prints.
			script = strings.ReplaceAll(script, "TOKEN=rk_…", "")
			timeout := 30 * time.Second
			if ex.loops {
				timeout = 3 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TOKEN="+e.token)
			out, err := cmd.CombinedOutput()
			stopped := ctx.Err() != nil
			cancel()
			where := fmt.Sprintf("%s:%d", ex.doc, ex.line)
			switch {
			case ex.loops && !stopped:
				t.Errorf("%s: the example should run until stopped, but it ended (%v):\n%s", where, err, out)
			case !ex.loops && stopped:
				t.Errorf("%s: the example did not end within %s:\n%s", where, timeout, out)
			case !ex.loops && err != nil:
				t.Errorf("%s: the example failed (%v):\n%s", where, err, out)
			}
			requests, failures := seen.take()
			if requests == 0 {
				t.Errorf("%s: the example reached no server (did curl refuse the URL?):\n%s", where, out)
			}
			for _, f := range failures {
				t.Errorf("%s: the server failed: %s", where, f)
			}
		}
	}
}

// seedDocumented makes the records the examples name.
func seedDocumented(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.c.Customers.Create(ctx, client.CustomerWrite{ID: "c-1", Email: client.Set("c1@example.com")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Returns.Create(ctx, client.ReturnWrite{ID: "r-1", Status: client.Set("open")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ReturnLineItems.Create(ctx, client.ReturnLineItemWrite{ID: "li-1", ReturnID: client.Set("r-1")}); err != nil {
		t.Fatal(err)
	}
}

// fileMarker precedes a document's code block that is a file of the
// repository, shown whole: the block must be that file, byte for byte.
const fileMarker = "<!-- file: "

// The files the documents show whole are shown as they are.
func TestDocumentedFiles(t *testing.T) {
	shown := 0
	for _, doc := range documented {
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			name, ok := strings.CutPrefix(strings.TrimSpace(line), fileMarker)
			if !ok {
				continue
			}
			name = strings.TrimSpace(strings.TrimSuffix(name, "-->"))
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				t.Errorf("%s:%d: %s is not followed by a code block", doc, i+1, line)
				continue
			}
			var block strings.Builder
			for _, l := range lines[i+2:] {
				if strings.HasPrefix(l, "```") {
					break
				}
				block.WriteString(l + "\n")
			}
			want, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
			if err != nil {
				t.Errorf("%s:%d: %v", doc, i+1, err)
				continue
			}
			if block.String() != string(want) {
				t.Errorf("%s:%d: the block differs from %s; show the file as it is", doc, i+1, name)
			}
			shown++
		}
	}
	if shown < 2 {
		t.Errorf("the documents show %d files whole; the README shows both clients' quickstarts", shown)
	}
}

// The Go client's quickstart, a program of another module that requires
// the client, builds and runs against a server.
func TestGoClientQuickstart(t *testing.T) {
	e := newEnv(t, migrate.SQLite)
	out, err := runIn("../../examples/go", []string{"RECORDS_URL=" + e.base, "TOKEN=" + e.token}, "go", "run", ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created ", "refused: limit ", "open returns: 1", "to received at version 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the quickstart said %q, without %q", out, want)
		}
	}
}

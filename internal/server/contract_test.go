package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"records/internal/gen"
	"records/internal/migrate"
	"records/internal/servertest"
	"records/internal/spec"
)

// document and checkContract are servertest's.
var (
	document      = servertest.Document
	checkContract = servertest.CheckContract
)

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc, _ := document(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("want OpenAPI 3.1, got %s", doc.OpenAPI)
	}
	for _, s := range []string{"bearer", "token"} {
		if doc.Components.SecuritySchemes[s] == nil {
			t.Errorf("no %s security scheme", s)
		}
	}
	var codes []string
	for _, c := range spec.Codes {
		codes = append(codes, string(c.Code))
	}
	enum := doc.Components.Schemas["Problem"].Value.Properties["code"].Value.Enum
	if len(enum) != len(codes) {
		t.Fatalf("the Problem schema lists %d codes, package problem %d", len(enum), len(codes))
	}
}

// The document and the server's router list the same routes: every route
// registered is documented, with its method, and nothing else is.
func TestDocumentCoversEveryRoute(t *testing.T) {
	doc, _ := document(t)
	h := newHarness(t, migrate.SQLite, testConfig())
	registered := map[string]bool{}
	for _, r := range h.srv.Routes() {
		p := strings.NewReplacer(":id", "{id}", ":file", "{file}").Replace(r.Path)
		registered[r.Method+" "+p] = true
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented[method+" "+path] = true
			_ = op
		}
	}
	var missing, extra []string
	for k := range registered {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !registered[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Fatalf("routes not documented: %v\ndocumented but not routes: %v", missing, extra)
	}
	// Deprecated routes are marked so.
	for _, r := range h.srv.Routes() {
		if !r.Deprecated {
			continue
		}
		op := doc.Paths.Find(strings.ReplaceAll(r.Path, ":id", "{id}")).GetOperation(r.Method)
		if op == nil || !op.Deprecated {
			t.Errorf("%s %s is deprecated but not marked so", r.Method, r.Path)
		}
	}
	if len(registered) < 120 {
		t.Fatalf("only %d routes", len(registered))
	}
}

func TestDocsPageLoadsTheDocument(t *testing.T) {
	h := newHarness(t, migrate.SQLite, testConfig())
	r := h.callAs("", "GET", "/docs", "").want(200)
	page := string(r.Body)
	for _, want := range []string{`url: "v1/openapi.json"`, `src="docs/assets/swagger-ui-bundle.js"`, `href="docs/assets/swagger-ui.css"`, `id="problem-invalid_request"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the page lacks %s", want)
		}
	}
	for _, asset := range []string{"swagger-ui-bundle.js", "swagger-ui.css"} {
		a := h.callAs("", "GET", "/docs/assets/"+asset, "").want(200)
		if len(a.Body) < 10000 {
			t.Fatalf("%s: %d bytes", asset, len(a.Body))
		}
	}
	h.callAs("", "GET", "/docs/assets/nothing.js", "").problem(404, "not_found")
	h.unchecked = true // a redirect, not a route of the document
	if r := h.callAs("", "GET", "/docs/", "").want(301); r.Header.Get("Location") != "/docs" {
		t.Fatalf("/docs/ leads to %q", r.Header.Get("Location"))
	}
	h.unchecked = false
	doc := h.callAs("", "GET", "/v1/openapi.json", "").want(200)
	if !strings.HasPrefix(string(doc.Body), `{"openapi":"3.1.0"`) {
		t.Fatalf("the document: %.100s", doc.Body)
	}
	tag := doc.Header.Get("ETag")
	if h.callAs("", "GET", "/v1/openapi.json", "", "If-None-Match", tag).Status != http.StatusNotModified {
		t.Fatal("a known ETag must answer 304")
	}
	// Through the whole edge, a client that accepts gzip gets the same
	// document compressed, whose tag answers 304 too.
	req := httptest.NewRequest("GET", "/v1/openapi.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("with Accept-Encoding: gzip: %d %v", w.Code, w.Header())
	}
	z, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(z); err != nil || !bytes.Equal(plain, doc.Body) {
		t.Fatalf("the gzipped document differs (%v)", err)
	}
	if h.callAs("", "GET", "/v1/openapi.json", "", "If-None-Match", w.Header().Get("ETag")).Status != http.StatusNotModified {
		t.Fatal("the gzipped document's ETag must answer 304")
	}
	// Every problem code has its anchor on the page.
	for _, c := range gen.ProblemCodes() {
		if !strings.Contains(page, `id="problem-`+c+`"`) {
			t.Errorf("no anchor for %s", c)
		}
	}
}

// recordingTB records a failure instead of ending the test.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Helper()               {}
func (r *recordingTB) Fatalf(string, ...any) { r.failed = true }
func (r *recordingTB) Errorf(string, ...any) { r.failed = true }

// The contract check catches drift, in each direction it guards.
func TestContractCheckCatchesDrift(t *testing.T) {
	exchange := func(method, path, body string, status int, answer string, contentType string) bool {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("X-Request-Id", "r")
		w.WriteHeader(status)
		w.WriteString(answer)
		rec := &recordingTB{TB: t}
		checkContract(rec, req, []byte(body), w)
		return rec.failed
	}
	good := `{"id":"c","sso_id":null,"email":"a","firstName":null,"lastName":null,"phone":null,"payment_customer_id":null,"timestamp":null,"activationDate":null}`
	if exchange("GET", "/v1/customers/c", "", 200, good, "application/json") {
		t.Fatal("a faithful exchange was flagged")
	}
	cases := map[string]bool{
		"a member of the wrong type": exchange("GET", "/v1/customers/c", "", 200, strings.Replace(good, `"email":"a"`, `"email":1`, 1), "application/json"),
		// A read may answer some members only (fields), so a write's answer
		// stands for every member present.
		"a missing member":               exchange("POST", "/v1/customers", `{}`, 201, strings.Replace(good, `,"phone":null`, "", 1), "application/json"),
		"a sparse record without its id": exchange("GET", "/v1/customers/c", "", 200, `{"email":"a"}`, "application/json"),
		"an extra member":                exchange("GET", "/v1/customers/c", "", 200, strings.Replace(good, `{"id":"c"`, `{"id":"c","x":1`, 1), "application/json"),
		"an undocumented status":         exchange("GET", "/v1/customers/c", "", 418, `{}`, "application/json"),
		"a problem that is not one":      exchange("GET", "/v1/customers/c", "", 404, `{"error":"nope"}`, "application/problem+json"),
		"an unknown member accepted":     exchange("POST", "/v1/customers", `{"bogus":1}`, 201, good, "application/json"),
		"a wrong type accepted":          exchange("POST", "/v1/customers", `{"email":true}`, 201, good, "application/json"),
		"a route not documented":         exchange("GET", "/v1/nowhere", "", 200, `{}`, "application/json"),
	}
	for what, caught := range cases {
		if !caught {
			t.Errorf("the contract check missed %s", what)
		}
	}
}

package docs

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

const document = `{
  "openapi": "3.1.0",
  "info": {"title": "Records API", "description": "` + "a description long enough that gzip pays, a description long enough that gzip pays" + `"}
}`

func engine(t *testing.T) *gin.Engine {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	d := New([]byte(document))
	e := gin.New()
	e.GET("/v1/openapi.json", d.Document)
	e.GET("/docs", d.Page)
	e.GET("/docs/assets/:file", func(c *gin.Context) { d.Asset(c, func(c *gin.Context) { c.Status(http.StatusNotFound) }) })
	return e
}

func get(e *gin.Engine, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	return w
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The document is served compacted, and gzipped to a client that accepts
// it: the same content under another entity tag, with Vary, a length and
// the encoding named.
func TestDocumentIsServedGzippedToWhoAcceptsIt(t *testing.T) {
	e := engine(t)
	plain := get(e, "/v1/openapi.json")
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || !strings.HasPrefix(plain.Body.String(), `{"openapi":"3.1.0"`) {
		t.Fatalf("plain: %d %q %.40s", plain.Code, plain.Header().Get("Content-Encoding"), plain.Body)
	}
	zipped := get(e, "/v1/openapi.json", "Accept-Encoding", "gzip, deflate, br")
	if zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("not gzipped: %v", zipped.Header())
	}
	if got := gunzip(t, zipped.Body.Bytes()); !bytes.Equal(got, plain.Body.Bytes()) {
		t.Fatalf("gunzipped %q, want %q", got, plain.Body)
	}
	if zipped.Body.Len() >= plain.Body.Len() {
		t.Fatalf("gzipped %d bytes, plain %d", zipped.Body.Len(), plain.Body.Len())
	}
	for _, w := range []*httptest.ResponseRecorder{plain, zipped} {
		if w.Header().Get("Vary") != "Accept-Encoding" || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
			t.Fatalf("headers %v for %d bytes", w.Header(), w.Body.Len())
		}
	}
	pt, zt := plain.Header().Get("ETag"), zipped.Header().Get("ETag")
	if pt == "" || zt == "" || pt == zt {
		t.Fatalf("ETags %s and %s", pt, zt)
	}
}

// Either entity tag, in any list If-None-Match may hold, answers 304
// without a body, whatever the encoding asked now; another does not.
func TestKnownETagAnswers304(t *testing.T) {
	e := engine(t)
	pt := get(e, "/v1/openapi.json").Header().Get("ETag")
	zt := get(e, "/v1/openapi.json", "Accept-Encoding", "gzip").Header().Get("ETag")
	for _, tc := range []struct {
		noneMatch, acceptEncoding string
		want                      int
	}{
		{pt, "", 304},
		{pt, "gzip", 304},
		{zt, "", 304},
		{zt, "gzip", 304},
		{`"other", W/` + zt, "gzip", 304},
		{`"a,b", ` + pt, "", 304},
		{"*", "", 304},
		{`"other"`, "gzip", 200},
		{strings.Trim(pt, `"`), "", 200},
	} {
		w := get(e, "/v1/openapi.json", "If-None-Match", tc.noneMatch, "Accept-Encoding", tc.acceptEncoding)
		if w.Code != tc.want {
			t.Errorf("If-None-Match %s, Accept-Encoding %q: %d, want %d", tc.noneMatch, tc.acceptEncoding, w.Code, tc.want)
		}
		if w.Code == 304 && (w.Body.Len() > 0 || w.Header().Get("ETag") == "") {
			t.Errorf("a 304 with %d bytes, ETag %q", w.Body.Len(), w.Header().Get("ETag"))
		}
	}
}

// The page and its files are served the same way; an unknown file is
// not found.
func TestPageAndAssetsAreServedGzipped(t *testing.T) {
	e := engine(t)
	for _, path := range []string{"/docs", "/docs/assets/swagger-ui.css", "/docs/assets/swagger-ui-bundle.js"} {
		plain := get(e, path)
		zipped := get(e, path, "Accept-Encoding", "gzip")
		if plain.Code != 200 || zipped.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, zipped.Body.Bytes()), plain.Body.Bytes()) {
			t.Fatalf("%s: %d, %v", path, plain.Code, zipped.Header())
		}
		if w := get(e, path, "If-None-Match", zipped.Header().Get("ETag")); w.Code != 304 {
			t.Fatalf("%s: %d to a known ETag", path, w.Code)
		}
	}
	if w := get(e, "/docs/assets/nothing.js"); w.Code != 404 {
		t.Fatalf("an unknown file: %d", w.Code)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                          false,
		"gzip":                      true,
		"GZIP":                      true,
		"x-gzip":                    true,
		"deflate, gzip;q=0.5":       true,
		"gzip;q=0":                  false,
		"gzip; q=0.0, *":            false,
		"*":                         true,
		"*;q=0":                     false,
		"br, identity":              false,
		"identity;q=1, *;q=0.1":     true,
		"gzip;level=1;q=0.001, br":  true,
		"compress, gzip ; Q = 0.2 ": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v", header, got)
		}
	}
}

// New prepares nothing: the document is compacted on its first request,
// so a server that is never asked for it never holds it in its heap. A
// broken document shows there, as a panic (the server's recovery answers
// 500), not at New.
func TestDocumentIsPreparedOnItsFirstRequest(t *testing.T) {
	d := New([]byte(`{"openapi": `))
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "docs: preparing the docs") {
			t.Fatalf("recovered %v, want the docs' panic", r)
		}
	}()
	d.doc()
}

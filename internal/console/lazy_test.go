package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gin-gonic/gin"
)

// countingFS counts the files read from a build.
type countingFS struct {
	fstest.MapFS
	reads *int
}

func (f countingFS) ReadFile(name string) ([]byte, error) {
	*f.reads++
	return f.MapFS.ReadFile(name)
}

// New reads no file of the build, only finds its page and assets; the
// first request reads them all, and no later one reads again. A build
// without its page fails at once.
func TestBuildIsReadOnItsFirstRequest(t *testing.T) {
	reads := 0
	build := countingFS{fstest.MapFS{
		"dist/index.html":      {Data: []byte("<!doctype html><title>console</title>")},
		"dist/assets/app-1.js": {Data: []byte("console.log(1)")},
	}, &reads}
	con, err := open(build)
	if err != nil || reads != 0 {
		t.Fatalf("open: %v after %d reads, want none", err, reads)
	}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/console", con.Page)
	e.GET("/console/assets/:file", func(c *gin.Context) { con.Asset(c, func(c *gin.Context) { c.Status(http.StatusNotFound) }) })
	for _, path := range []string{"/console", "/console/assets/app-1.js", "/console"} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK || w.Body.Len() == 0 {
			t.Fatalf("%s: %d %q", path, w.Code, w.Body)
		}
	}
	if reads != 2 {
		t.Fatalf("%d files read for three requests, want the build's two once", reads)
	}
	delete(build.MapFS, "dist/index.html")
	if _, err := open(build); err == nil || !strings.Contains(err.Error(), "no index.html") {
		t.Fatalf("a build without its page: %v", err)
	}
}

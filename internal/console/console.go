// Package console serves the console: the web application of DESIGN §18,
// for people who handle records all day. Its sources are in console/ at
// the repository's top (Preact, TypeScript, built by Vite); the build is
// committed in dist/ and embedded here, so the binary serves it with no
// Node and no CDN. The page needs no token: its calls to the API carry the
// one the person signs in with, as a header.
package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sync"

	"github.com/gin-gonic/gin"
)

//go:embed dist
var dist embed.FS

// Policy is the Content-Security-Policy of every answer of the console:
// its own scripts, styles and API only — no inline script or style, no
// other origin, no frames, no forms sent anywhere.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Console serves the page and its assets, read from the embedded build
// and hashed on the first request: a server nobody opens the console of
// keeps none of it in its heap.
type Console struct {
	build func() *build
}

// build is the build's page and assets, by name, ready to serve.
type build struct {
	page   file
	assets map[string]file
}

type file struct {
	body        []byte
	contentType string
	tag         string
}

// New checks that the embedded build has its page and assets; it reads
// none of them.
func New() (*Console, error) {
	return open(dist)
}

func open(fsys fs.FS) (*Console, error) {
	if _, err := fs.Stat(fsys, "dist/index.html"); err != nil {
		return nil, fmt.Errorf("console: the build has no index.html (cd console && npm ci && npm run build): %w", err)
	}
	if _, err := fs.ReadDir(fsys, "dist/assets"); err != nil {
		return nil, fmt.Errorf("console: the build has no assets: %w", err)
	}
	return &Console{build: sync.OnceValue(func() *build { return load(fsys) })}, nil
}

// load reads and hashes the build, which open has found whole: a file
// that cannot be read then is a build broken beyond running (a 500).
func load(fsys fs.FS) *build {
	read := func(name string) []byte {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic("console: reading the build: " + err.Error())
		}
		return b
	}
	f := &build{page: newFile(read("dist/index.html"), "text/html; charset=utf-8"), assets: map[string]file{}}
	entries, _ := fs.ReadDir(fsys, "dist/assets")
	for _, e := range entries {
		typ := mime.TypeByExtension(path.Ext(e.Name()))
		if typ == "" {
			typ = "application/octet-stream"
		}
		f.assets[e.Name()] = newFile(read("dist/assets/"+e.Name()), typ)
	}
	return f
}

func newFile(b []byte, typ string) file {
	sum := sha256.Sum256(b)
	return file{body: b, contentType: typ, tag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// secure sets the headers every answer of the console carries.
func secure(h http.Header) {
	h.Set("Content-Security-Policy", Policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

func serve(c *gin.Context, f file, cache string) {
	h := c.Writer.Header()
	secure(h)
	h.Set("ETag", f.tag)
	h.Set("Cache-Control", cache)
	if c.GetHeader("If-None-Match") == f.tag {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, f.contentType, f.body)
}

// Redirect answers a move to the page at to, with the headers of every
// answer of the console.
func Redirect(to string) gin.HandlerFunc {
	return func(c *gin.Context) {
		secure(c.Writer.Header())
		c.Redirect(http.StatusMovedPermanently, to)
	}
}

// Page serves the application's page; it names its assets by hash, so it
// is revalidated on every load and they never are.
func (con *Console) Page(c *gin.Context) {
	serve(c, con.build().page, "no-cache")
}

// Asset serves a file of the build by name, or calls notFound.
func (con *Console) Asset(c *gin.Context, notFound func(*gin.Context)) {
	f, ok := con.build().assets[c.Param("file")]
	if !ok {
		secure(c.Writer.Header())
		notFound(c)
		return
	}
	// The name holds the content's hash: a new build has new names.
	serve(c, f, "public, max-age=31536000, immutable")
}

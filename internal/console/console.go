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

	"github.com/gin-gonic/gin"
)

//go:embed dist
var dist embed.FS

// Policy is the Content-Security-Policy of every answer of the console:
// its own scripts, styles and API only — no inline script or style, no
// other origin, no frames, no forms sent anywhere.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Console holds the page and its assets, read once from the embedded build.
type Console struct {
	page   file
	assets map[string]file
}

type file struct {
	body        []byte
	contentType string
	tag         string
}

// New reads the embedded build.
func New() (*Console, error) {
	return load(dist)
}

func load(fsys fs.FS) (*Console, error) {
	page, err := fs.ReadFile(fsys, "dist/index.html")
	if err != nil {
		return nil, fmt.Errorf("console: the build has no index.html (cd console && npm ci && npm run build): %w", err)
	}
	c := &Console{page: newFile(page, "text/html; charset=utf-8"), assets: map[string]file{}}
	entries, err := fs.ReadDir(fsys, "dist/assets")
	if err != nil {
		return nil, fmt.Errorf("console: the build has no assets: %w", err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, "dist/assets/"+e.Name())
		if err != nil {
			return nil, err
		}
		typ := mime.TypeByExtension(path.Ext(e.Name()))
		if typ == "" {
			typ = "application/octet-stream"
		}
		c.assets[e.Name()] = newFile(b, typ)
	}
	return c, nil
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

// Page serves the application's page; it names its assets by hash, so it
// is revalidated on every load and they never are.
func (con *Console) Page(c *gin.Context) {
	serve(c, con.page, "no-cache")
}

// Asset serves a file of the build by name, or calls notFound.
func (con *Console) Asset(c *gin.Context, notFound func(*gin.Context)) {
	f, ok := con.assets[c.Param("file")]
	if !ok {
		secure(c.Writer.Header())
		notFound(c)
		return
	}
	// The name holds the content's hash: a new build has new names.
	serve(c, f, "public, max-age=31536000, immutable")
}

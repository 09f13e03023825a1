// Package docs serves the API's documentation: the OpenAPI document and a
// page that renders it with Swagger UI, whose files are vendored from npm
// (npm/package-lock.json pins them; `make docs-assets` refreshes them) and
// embedded, so the page works offline and needs no CDN.
package docs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"mime"
	"net/http"
	"path"

	"github.com/gin-gonic/gin"

	"records/internal/spec"
)

//go:embed page.html
var pageSource string

//go:embed assets
var assets embed.FS

// Docs holds the rendered page and document, with their ETags.
type Docs struct {
	page, pageTag string
	doc, docTag   string
}

// New prepares the docs for an OpenAPI document (indented or not; it is
// served compacted).
func New(openAPI []byte) (*Docs, error) {
	var page bytes.Buffer
	t, err := template.New("page").Parse(pageSource)
	if err != nil {
		return nil, err
	}
	if err := t.Execute(&page, spec.Codes); err != nil {
		return nil, err
	}
	var doc bytes.Buffer
	if err := json.Compact(&doc, openAPI); err != nil {
		return nil, err
	}
	return &Docs{page: page.String(), pageTag: etag(page.Bytes()), doc: doc.String(), docTag: etag(doc.Bytes())}, nil
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// serve answers body with its type and ETag, or 304 when the client has it.
func serve(c *gin.Context, contentType, tag, body string, cache string) {
	h := c.Writer.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", cache)
	if c.GetHeader("If-None-Match") == tag {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, contentType, []byte(body))
}

// Document serves the OpenAPI document.
func (d *Docs) Document(c *gin.Context) {
	serve(c, "application/json", d.docTag, d.doc, "no-cache")
}

// Page serves the documentation page.
func (d *Docs) Page(c *gin.Context) {
	serve(c, "text/html; charset=utf-8", d.pageTag, d.page, "no-cache")
}

// Asset serves a file of the page; answers a problem-less 404 for others.
func (d *Docs) Asset(c *gin.Context, notFound func(*gin.Context)) {
	name := path.Clean(c.Param("file"))
	b, err := assets.ReadFile("assets/" + name)
	if err != nil || name == "." || path.Dir(name) != "." {
		notFound(c)
		return
	}
	typ := mime.TypeByExtension(path.Ext(name))
	if typ == "" {
		typ = "text/plain; charset=utf-8"
	}
	// The assets change only with the binary.
	serve(c, typ, etag(b), string(b), "public, max-age=86400")
}

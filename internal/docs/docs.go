// Package docs serves the API's documentation: the OpenAPI document and a
// page that renders it with Swagger UI, whose files are vendored from npm
// (npm/package-lock.json pins them; `make docs-assets` refreshes them) and
// embedded, so the page works offline and needs no CDN. Each is served
// with an ETag (If-None-Match answers 304) and, to a client that accepts
// it, compressed with gzip once, on its first request, not on every one.
package docs

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"records/internal/spec"
)

//go:embed page.html
var pageSource string

//go:embed assets
var assets embed.FS

// Docs holds the page and the document, each prepared on its first
// request: a server that never serves them never compacts, hashes or
// compresses the 700 KB document, nor keeps the results in its heap.
type Docs struct {
	page, doc func() *representation
}

// New prepares the docs for an OpenAPI document (indented or not; it is
// served compacted). The page and the document are made and compressed
// once, when first asked for; both are embedded in the binary, so a
// failure is a build broken beyond running and panics (a 500).
func New(openAPI []byte) *Docs {
	return &Docs{
		page: sync.OnceValue(func() *representation { return prepare(must(renderPage())) }),
		doc:  sync.OnceValue(func() *representation { return prepare(must(compact(openAPI))) }),
	}
}

// renderPage renders the page's template with the problem codes.
func renderPage() ([]byte, error) {
	var page bytes.Buffer
	t, err := template.New("page").Parse(pageSource)
	if err != nil {
		return nil, err
	}
	if err := t.Execute(&page, spec.Codes); err != nil {
		return nil, err
	}
	return page.Bytes(), nil
}

// compact compacts a JSON document.
func compact(doc []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic("docs: preparing the docs: " + err.Error())
	}
	return b
}

// representation is a body as it is and gzipped, each with its entity
// tag: the two are different representations of one content (RFC 9110
// §8.8.3), so a cache never takes one for the other.
type representation struct {
	body, gzipped []byte // gzipped is nil when compressing does not pay
	tag, gzipTag  string
}

var (
	preparedMu sync.Mutex
	// prepared are the representations made, by their tag: a process
	// that starts several servers (the tests) compresses each body once.
	prepared = map[string]*representation{}
)

// prepare makes (or finds) the representations of body.
func prepare(body []byte) *representation {
	sum := sha256.Sum256(body)
	tag := `"` + hex.EncodeToString(sum[:12]) + `"`
	preparedMu.Lock()
	defer preparedMu.Unlock()
	if r, ok := prepared[tag]; ok {
		return r
	}
	r := &representation{body: body, tag: tag}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(body)
	if w.Close() == nil && z.Len() < len(body) {
		r.gzipped, r.gzipTag = z.Bytes(), tag[:len(tag)-1]+`-gzip"`
	}
	prepared[tag] = r
	return r
}

// serve answers r with its type: gzipped when the client accepts it, and
// 304 without a body when If-None-Match lists either tag.
func serve(c *gin.Context, contentType string, r *representation, cache string) {
	h := c.Writer.Header()
	h.Set("Cache-Control", cache)
	h.Add("Vary", "Accept-Encoding")
	body, tag := r.body, r.tag
	compressed := r.gzipped != nil && acceptsGzip(c.GetHeader("Accept-Encoding"))
	if compressed {
		body, tag = r.gzipped, r.gzipTag
	}
	h.Set("ETag", tag)
	if matches(c.GetHeader("If-None-Match"), r.tag, r.gzipTag) {
		c.Status(http.StatusNotModified)
		return
	}
	if compressed {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Data(http.StatusOK, contentType, body)
}

// Document serves the OpenAPI document.
func (d *Docs) Document(c *gin.Context) {
	serve(c, "application/json", d.doc(), "no-cache")
}

// Page serves the documentation page.
func (d *Docs) Page(c *gin.Context) {
	serve(c, "text/html; charset=utf-8", d.page(), "no-cache")
}

var (
	assetsMu sync.Mutex
	// assetReps are the page's files, prepared on their first request
	// (Swagger UI's script is 1.7 MB: compressing it at every start
	// would slow every start).
	assetReps = map[string]*representation{}
)

// Asset serves a file of the page; answers a problem-less 404 for others.
func (d *Docs) Asset(c *gin.Context, notFound func(*gin.Context)) {
	name := path.Clean(c.Param("file"))
	if name == "." || path.Dir(name) != "." {
		notFound(c)
		return
	}
	assetsMu.Lock()
	r, ok := assetReps[name]
	if !ok {
		if b, err := assets.ReadFile("assets/" + name); err == nil {
			r = prepare(b)
			assetReps[name] = r
		}
	}
	assetsMu.Unlock()
	if r == nil {
		notFound(c)
		return
	}
	typ := mime.TypeByExtension(path.Ext(name))
	if typ == "" {
		typ = "text/plain; charset=utf-8"
	}
	// The assets change only with the binary.
	serve(c, typ, r, "public, max-age=86400")
}

// acceptsGzip tells whether an Accept-Encoding header accepts gzip: named
// (or x-gzip), or covered by *, with a quality above 0.
func acceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch coding {
		case "gzip", "x-gzip":
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

// matches tells whether an If-None-Match header lists one of tags, or *,
// comparing weakly (W/"x" matches "x"), as RFC 9110 §13.1.2 asks.
func matches(header string, tags ...string) bool {
	for s := strings.TrimSpace(header); s != ""; s = strings.TrimLeft(s, " \t,") {
		if s[0] == '*' {
			return true
		}
		s = strings.TrimPrefix(s, "W/")
		if s == "" || s[0] != '"' {
			return false // not an entity tag: nothing further can be read
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return false
		}
		tag := s[:end+2]
		for _, t := range tags {
			if t != "" && t == tag {
				return true
			}
		}
		s = s[end+2:]
	}
	return false
}

package engine

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/gin-gonic/gin"

	"records/internal/problem"
	"records/internal/wire"
)

// readBody returns the request body. An empty body is allowed everywhere
// and needs no Content-Type; any other must be JSON (415), within MaxBody
// (413). The media type is judged before the size.
func (s *Service) ReadBody(c *gin.Context) ([]byte, error) {
	r := c.Request
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, nil
	}
	body := io.Reader(r.Body)
	if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		// No coding is decoded (RFC 9110 §8.4: 415): a compressed body
		// read as JSON would be a puzzling 400, a plain one labelled
		// compressed a body stored as it was not sent.
		return nil, problem.New(problem.UnsupportedMediaType, "the body is encoded (Content-Encoding: %s); send it unencoded", enc)
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		if r.ContentLength > 0 {
			return nil, unsupportedType(r)
		}
		// Unknown length: an empty chunked body is still an empty body.
		var first [1]byte
		n, _ := io.ReadFull(r.Body, first[:])
		if n == 0 {
			return nil, nil
		}
		return nil, unsupportedType(r)
	}
	if r.ContentLength > s.MaxBody {
		return nil, tooLarge(s.MaxBody)
	}
	if r.ContentLength > 0 {
		// The length is known and within the limit: read exactly it, into
		// one buffer of its size (net/http's body ends there).
		buf := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, readFailed(err)
		}
		return buf, nil
	}
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(c.Writer, io.NopCloser(body), s.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge(s.MaxBody)
	case err != nil:
		return nil, readFailed(err)
	}
	return buf.Bytes(), nil
}

// readFailed is the problem of a body that could not be read: one that did
// not arrive within the server's time for reading a request is a 408 (the
// client is still there, and is answered); otherwise the client went away
// mid-body, which edge.Fail logs as a hang-up.
func readFailed(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &problem.Error{Code: problem.RequestTimeout, Detail: "the body did not arrive in time; send it again", Cause: err}
	}
	return problem.New(problem.InvalidRequest, "reading the body failed: %v", err)
}

// isJSON accepts application/json and application/*+json, with parameters;
// a charset, if given, is UTF-8's (JSON's own, RFC 8259 §8.1): a body
// labelled another is not read as UTF-8 (415).
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true // the usual header, spared the parser's map of parameters
	}
	t, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return false
	}
	return t == "application/json" || (strings.HasPrefix(t, "application/") && strings.HasSuffix(t, "+json"))
}

func unsupportedType(r *http.Request) *problem.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return problem.New(problem.UnsupportedMediaType, "a body needs the header Content-Type: application/json")
	}
	if _, params, err := mime.ParseMediaType(ct); err == nil && params["charset"] != "" {
		return problem.New(problem.UnsupportedMediaType, "the body's charset is %s; JSON is sent in UTF-8 (charset=utf-8, or none)", params["charset"])
	}
	return problem.New(problem.UnsupportedMediaType, "the body is %s; send application/json", ct)
}

func tooLarge(limit int64) *problem.Error {
	return problem.New(problem.PayloadTooLarge, "the body exceeds the limit of %d bytes", limit)
}

// ParseBody splits a body into its members, turning JSON errors into 400s.
func ParseBody(body []byte) ([]wire.Member, error) {
	members, err := wire.ParseObject(body)
	if err != nil {
		return nil, parseError(err)
	}
	return members, nil
}

// parseError turns a JSON reader's error into the 400 a client can act on.
func parseError(err error) error {
	var (
		syntax *wire.SyntaxError
		dup    *wire.DuplicateError
		deep   *wire.DepthError
	)
	switch {
	case errors.As(err, &deep):
		return problem.New(problem.InvalidRequest, "the JSON nests objects and arrays more than %d levels deep (at byte offset %d, counting from 0)", wire.MaxDepth, deep.Offset)
	case errors.As(err, &syntax):
		return problem.New(problem.InvalidJSON, "malformed JSON at byte offset %d (counting from 0): %s", syntax.Offset, syntax.Msg)
	case errors.As(err, &dup):
		return problem.Member(dup.Name, "appears more than once")
	default:
		return problem.New(problem.InvalidRequest, "%s", err.Error())
	}
}

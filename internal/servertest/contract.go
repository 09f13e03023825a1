package servertest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"records/internal/resources"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

var (
	contractOnce   sync.Once
	contractDoc    *openapi3.T
	contractRouter routers.Router
	contractErr    error
)

// Document loads the served OpenAPI document (once) and a router over it.
func Document(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	contractOnce.Do(func() {
		// JSON Schema's date-time is RFC 3339's (§5.6), whose "T" and "Z"
		// may be written in lower case; kin-openapi's pattern takes upper
		// case only.
		openapi3.DefineStringFormatValidator("date-time", openapi3.NewRegexpFormatValidator(
			strings.NewReplacer(`T(`, `[Tt](`, `(Z|`, `([Zz]|`).Replace(openapi3.FormatOfStringDateTime)))
		loader := openapi3.NewLoader()
		contractDoc, contractErr = loader.LoadFromData(resources.OpenAPI)
		if contractErr == nil {
			contractErr = contractDoc.Validate(context.Background())
		}
		if contractErr == nil {
			contractRouter, contractErr = gorillamux.NewRouter(contractDoc)
		}
	})
	if contractErr != nil {
		t.Fatalf("the OpenAPI document: %v", contractErr)
	}
	return contractDoc, contractRouter
}

// CheckContract holds one exchange against the document: a request the
// document rejects must be answered 4xx (the document may be stricter in
// words, never in effect), and every answer — success or problem — must
// have a documented status and match its schema. Requests whose body is
// not application/json (the media-type tests) are outside the document;
// their answers are still checked.
func CheckContract(t testing.TB, req *http.Request, body []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	_, router := Document(t)
	vreq := req.Clone(context.Background())
	vreq.Body = http.NoBody
	head := req.Method == http.MethodHead
	if head {
		// HEAD is GET without the body: checked as GET, but for the body.
		vreq.Method = http.MethodGet
	}
	if len(body) > 0 {
		vreq.Body = httpBody(body)
	}
	route, params, err := router.FindRoute(vreq)
	if err != nil {
		if w.Code != http.StatusNotFound && w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("contract: %s %s is not in the document, yet answered %d", req.Method, req.URL.Path, w.Code)
		}
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	ct := req.Header.Get("Content-Type")
	documented := len(body) == 0 || strings.HasPrefix(ct, "application/json")
	var reqErr error
	if documented {
		reqErr = openapi3filter.ValidateRequest(context.Background(), in)
	}
	if reqErr != nil && w.Code < 400 {
		t.Fatalf("contract: the document rejects %s %s %s, but the server answered %d:\n%v", req.Method, req.URL, body, w.Code, reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 w.Code,
		Header:                 w.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: head},
	}
	out.SetBodyBytes(w.Body.Bytes())
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("contract: the answer to %s %s (%d) differs from the document:\n%v\nbody: %.600s", req.Method, req.URL, w.Code, err, w.Body)
	}
}

type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

func httpBody(b []byte) bodyReader { return bodyReader{bytes.NewReader(b)} }

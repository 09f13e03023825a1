package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// RequestOption configures one request.
type RequestOption func(*request)

type request struct {
	header   http.Header
	response *Response
}

// IdempotencyKey makes a write safe to retry: a retry with the same key and
// request answers the first answer again and writes nothing.
func IdempotencyKey(key string) RequestOption {
	return func(r *request) { r.header.Set("Idempotency-Key", key) }
}

// IfMatch writes only if the record's ETag is one of etags ("*": if it
// exists); otherwise the call fails with a 412 *Problem.
func IfMatch(etags ...string) RequestOption {
	return func(r *request) { r.header.Set("If-Match", strings.Join(etags, ", ")) }
}

// IfVersion writes only if the record is at the version: If-Match with the
// version's ETag.
func IfVersion(version int64) RequestOption {
	return IfMatch(strconv.Quote(strconv.FormatInt(version, 10)))
}

// Header sends a header with the request.
func Header(name, value string) RequestOption {
	return func(r *request) { r.header.Set(name, value) }
}

// Capture fills resp with the status and headers of the answer.
func Capture(resp *Response) RequestOption {
	return func(r *request) { r.response = resp }
}

// Response is what an answer said besides its body.
type Response struct {
	Status int
	Header http.Header
}

// Created tells whether the request created a record (201).
func (r *Response) Created() bool { return r.Status == http.StatusCreated }

// Replayed tells whether the answer is the stored one of an earlier request
// with the same Idempotency-Key.
func (r *Response) Replayed() bool { return r.Header.Get("Idempotent-Replayed") == "true" }

// ETag is the record's entity tag, answered with a plain record.
func (r *Response) ETag() string { return r.Header.Get("ETag") }

// Where a call puts the record's id.
const (
	inPath  = "path"
	inQuery = "query"
	inBody  = "body"
)

// call is one request: its route, where its id goes, and what it sends.
type call struct {
	method string
	path   string // gin's pattern: :id is the id
	alt    string // the route without the id, sent to when the id is empty
	id     string
	idIn   string
	idName string
	query  url.Values
	body   any
}

// target is the call's path and query string.
func (k call) target() (string, error) {
	path := k.path
	switch {
	case k.idIn != inPath:
	case k.id != "":
		path = strings.Replace(path, ":id", url.PathEscape(k.id), 1)
	case k.alt != "":
		path = k.alt
	default:
		return "", fmt.Errorf("client: %s %s needs an id", k.method, k.path)
	}
	q := k.query
	if k.idIn == inQuery && k.id != "" {
		q = url.Values{}
		for name, vs := range k.query {
			q[name] = vs
		}
		q.Set(k.idName, k.id)
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path, nil
}

// payload is the call's JSON body, with the id among its members when it
// goes there; nil sends no body.
func (k call) payload() ([]byte, error) {
	if k.idIn != inBody || k.id == "" {
		if k.body == nil {
			return nil, nil
		}
		return json.Marshal(k.body)
	}
	members := map[string]json.RawMessage{}
	if k.body != nil {
		b, err := json.Marshal(k.body)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &members); err != nil {
			return nil, err
		}
	}
	id, err := json.Marshal(k.id)
	if err != nil {
		return nil, err
	}
	members[k.idName] = id
	return json.Marshal(members)
}

// send makes the call and decodes its answer into a T.
func send[T any](ctx context.Context, c *Client, k call, opts []RequestOption) (*T, error) {
	resp, err := c.open(ctx, k, "application/json", opts)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal(body, out); err != nil {
		return nil, fmt.Errorf("client: decoding the answer of %s %s: %w", k.method, k.path, err)
	}
	return out, nil
}

// open sends the call and returns the response of a success, whose body
// the caller closes; any other answer is returned as a *Problem.
func (c *Client) open(ctx context.Context, k call, accept string, opts []RequestOption) (*http.Response, error) {
	target, err := k.target()
	if err != nil {
		return nil, err
	}
	payload, err := k.payload()
	if err != nil {
		return nil, fmt.Errorf("client: encoding the body of %s %s: %w", k.method, k.path, err)
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, c.base+target, body)
	if err != nil {
		return nil, err
	}
	for name, vs := range c.header {
		req.Header[name] = vs
	}
	req.Header.Set("Accept", accept)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	r := request{header: req.Header}
	for _, o := range opts {
		o(&r)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if r.response != nil {
		*r.response = Response{Status: resp.StatusCode, Header: resp.Header}
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, readProblem(resp)
	}
	return resp, nil
}

package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Problem is an answer that is not a success: the API's RFC 9457 problem
// document (application/problem+json), or, for an answer that is none (a
// proxy's error page), its status and text. Every call's failure answered by
// the server is a *Problem; use errors.As to read it. A 304 answering
// If-None-Match is a *Problem too, with Status 304.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Code is the problem's stable name, one of the Code constants.
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
	// Errors are the members of the request at fault; empty when none is.
	Errors []MemberError `json:"errors"`
	// RetryAfter is how long the server asked to wait (429, 503, 409 of a
	// key in use); 0 when it did not say.
	RetryAfter time.Duration `json:"-"`
}

// MemberError names a member of the request ("limit", "[3].email",
// "filter.price.gte") and what is wrong with it.
type MemberError struct {
	Member  string `json:"member"`
	Problem string `json:"problem"`
}

func (p *Problem) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "records: %d", p.Status)
	if p.Code != "" {
		b.WriteString(" " + p.Code)
	}
	if p.Detail != "" {
		b.WriteString(": " + p.Detail)
	}
	if p.RequestID != "" {
		b.WriteString(" (request " + p.RequestID + ")")
	}
	return b.String()
}

// Member is what the problem says of the member, and whether it names it.
func (p *Problem) Member(name string) (string, bool) {
	for _, m := range p.Errors {
		if m.Member == name {
			return m.Problem, true
		}
	}
	return "", false
}

// CodeOf is the code of the *Problem err holds, or "" when it holds none.
func CodeOf(err error) string {
	var p *Problem
	if errors.As(err, &p) {
		return p.Code
	}
	return ""
}

// readProblem reads the answer of a failed request.
func readProblem(resp *http.Response) *Problem {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	p := &Problem{}
	if !strings.Contains(resp.Header.Get("Content-Type"), "json") || json.Unmarshal(body, p) != nil {
		p = &Problem{Detail: strings.TrimSpace(string(body[:min(len(body), 512)]))}
	}
	if p.Status == 0 {
		p.Status = resp.StatusCode
	}
	if p.Title == "" {
		p.Title = http.StatusText(resp.StatusCode)
	}
	if p.RequestID == "" {
		p.RequestID = resp.Header.Get("X-Request-Id")
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		p.RetryAfter = time.Duration(s) * time.Second
	}
	return p
}

package engine

import (
	"net/http"
	"strconv"
	"strings"

	"records/internal/problem"
	"records/internal/spec"
)

// precondition is an If-Match or If-None-Match header: the versions it
// lists (strong entity tags "3"), or any version at all (*).
type precondition struct {
	header   string
	any      bool
	versions []int64
}

// parsePrecondition reads a conditional header; nil when absent. Weak tags
// (W/"3") never match a strong comparison, so they are kept out; a tag
// that is no version of ours matches nothing.
func parsePrecondition(r *http.Request, header string) (*precondition, error) {
	values := r.Header.Values(header)
	if len(values) == 0 {
		return nil, nil
	}
	p := &precondition{header: header}
	for _, v := range values {
		for _, tag := range strings.Split(v, ",") {
			tag = strings.TrimSpace(tag)
			switch {
			case tag == "":
			case tag == "*":
				p.any = true
			case strings.HasPrefix(tag, "W/"):
			case len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"':
				if n, err := strconv.ParseInt(tag[1:len(tag)-1], 10, 64); err == nil {
					p.versions = append(p.versions, n)
				}
			default:
				return nil, problem.Member(header, "must be * or entity tags in quotes, as ETag answers them: \"3\"")
			}
		}
	}
	return p, nil
}

// matches tells whether a record of version v meets the precondition.
func (p *precondition) matches(v int64) bool {
	if p.any {
		return true
	}
	for _, x := range p.versions {
		if x == v {
			return true
		}
	}
	return false
}

// failed is the 412 of an If-Match that the record does not meet.
func (p *precondition) failed(object, id string) *problem.Error {
	return &problem.Error{Code: spec.PreconditionFailed,
		Detail: "the " + object + " " + strconv.Quote(id) + " is not at a version If-Match lists (or does not exist); read it again, then retry"}
}

// etag is a version as an entity tag.
func etag(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }

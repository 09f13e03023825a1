package engine

import (
	"net/http"
	"slices"
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
	tags     []string // every strong tag, as sent: "3-9f86d081884c7d65"
	// exclude makes an If-None-Match condition a write: the record must be
	// at none of the versions (with *, there must be no record).
	exclude bool
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
	star, tags := false, 0
	for _, v := range values {
		for _, tag := range strings.Split(v, ",") {
			tag = strings.TrimSpace(tag)
			weak := strings.HasPrefix(tag, "W/")
			opaque, quoted := quotedTag(strings.TrimPrefix(tag, "W/"))
			switch {
			case tag == "":
			case tag == "*":
				p.any = true
				star = true
			case !quoted:
				return nil, problem.Member(header, "must be * or entity tags in quotes, as ETag answers them: \"3\"")
			case weak:
			default:
				p.tags = append(p.tags, tag)
				// If-Match is about the record's own version: a tag of an
				// answer with related records ("3-9f86…") names version 3.
				version := opaque
				if header == "If-Match" {
					version, _, _ = strings.Cut(opaque, "-")
				}
				// Compared strongly: "01" or "+1" is no version's tag.
				if n, err := strconv.ParseInt(version, 10, 64); err == nil && strconv.FormatInt(n, 10) == version {
					p.versions = append(p.versions, n)
				}
				tags++
			}
		}
	}
	if star && tags > 0 {
		return nil, problem.Member(header, "must be * alone, or entity tags in quotes")
	}
	return p, nil
}

// quotedTag answers the opaque part of an entity tag in quotes (RFC 9110:
// no quote within), and whether tag is one.
func quotedTag(tag string) (string, bool) {
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.Contains(tag[1:len(tag)-1], `"`) {
		return "", false
	}
	return tag[1 : len(tag)-1], true
}

// Conditions are a request's If-Match and If-None-Match, for the routes
// that are not operations of the route table (webhooks), honoured as the
// operations honour them.
type Conditions struct{ ifMatch, ifNoneMatch *precondition }

// ReadConditions reads r's conditional headers, or answers a 400 naming
// the one that does not parse.
func ReadConditions(r *http.Request) (Conditions, error) {
	var c Conditions
	var err error
	if c.ifMatch, err = parsePrecondition(r, "If-Match"); err != nil {
		return c, err
	}
	c.ifNoneMatch, err = parsePrecondition(r, "If-None-Match")
	return c, err
}

// AppendVersion appends to a statement's WHERE the If-Match check — the
// versions it lists — and their arguments to args; nothing without one.
func (c Conditions) AppendVersion(b *strings.Builder, args []any) []any {
	return versionCondition(b, c.ifMatch, args)
}

// Unmet is the answer to a write of object id that matched no row: 412
// under If-Match, else 404.
func (c Conditions) Unmet(object, id string) *problem.Error {
	if c.ifMatch != nil {
		return c.ifMatch.failed(object, id)
	}
	return notFound(object, id)
}

// NotModified tells whether If-None-Match lists version v: a read answers
// 304.
func (c Conditions) NotModified(v int64) bool {
	return c.ifNoneMatch != nil && c.ifNoneMatch.matches(v)
}

// ETag is version v as an entity tag.
func ETag(v int64) string { return etag(v) }

// matches tells whether a record of version v meets the precondition
// (for a read's If-None-Match: whether it lists v).
func (p *precondition) matches(v int64) bool {
	return (p.any || slices.Contains(p.versions, v)) != p.exclude
}

// listsTag tells whether the precondition lists the entity tag (or is *).
func (p *precondition) listsTag(tag string) bool {
	return p.any || slices.Contains(p.tags, tag)
}

// failed is the 412 of a write's precondition that the record does not
// meet.
func (p *precondition) failed(object, id string) *problem.Error {
	detail := "the " + object + " " + strconv.Quote(id) + " is not at a version If-Match lists (or does not exist); read it again, then retry"
	if p.exclude {
		detail = "the " + object + " " + strconv.Quote(id) + " exists at a version If-None-Match lists (* lists every one); nothing was written"
	}
	return &problem.Error{Code: spec.PreconditionFailed, Detail: detail}
}

// etag is a version as an entity tag.
func etag(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }

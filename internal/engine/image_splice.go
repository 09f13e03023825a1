package engine

import (
	"bytes"
	"unicode/utf8"

	"records/internal/spec"
	"records/internal/wire"
)

// Splicing an image: most images need no record at all. The members of a
// resource whose answered members are all strings, integers and booleans
// are written straight from the image's bytes, each under its member's
// name: a string the database wrote as the service writes it is copied as
// it is, an integer in its shortest form too, a boolean as true or false.
// What is not that simple — any other member type, an escape in a string,
// a number written otherwise, an image that is not a flat object — takes
// the general way (scanImage, then Encode), so the bytes answered are the
// same either way: TestSplicedImagesAreEncodedImages and, on real images of
// every resource, the server's event tests hold them to it.

// splicing is how a resource's images are spliced; nil fields: never.
type splicing struct {
	fields []splicedField
}

type splicedField struct {
	column string
	key    string // `{"member":` for the first member, `,"member":` after
	kind   spec.Type
	null   string // the member's JSON when its column is null: what a zero record answers
}

// maxSpliced bounds the members a spliced image has, so that their values
// fit in an array on the stack.
const maxSpliced = 64

// splicing builds, once, how res's images are spliced: never when a member
// is of another type or not a column, or when a probe image (every column
// set, then every column null) does not answer what the general way does.
func (res *Resource[E]) splicing() *splicing {
	res.spliceOnce.Do(func() {
		s := &splicing{}
		zero := new(E)
		for i, f := range res.Fields {
			if f.Column == "" || f.Append == nil || (f.Type != spec.String && f.Type != spec.Integer && f.Type != spec.Boolean) || i >= maxSpliced {
				res.splice = &splicing{}
				return
			}
			key := append([]byte{','}, wire.AppendString(nil, f.Member)...)
			if i == 0 {
				key[0] = '{'
			}
			s.fields = append(s.fields, splicedField{column: f.Column, key: string(append(key, ':')),
				kind: f.Type, null: string(f.Append(nil, zero))})
		}
		if len(s.fields) == 0 || res.Encode == nil || !agrees(s, res, true) || !agrees(s, res, false) {
			s = &splicing{}
		}
		res.splice = s
	})
	return res.splice
}

// agrees tells whether a probe image of res's columns, set or null, is
// spliced as the general way writes it.
func agrees[E any](s *splicing, res *Resource[E], set bool) bool {
	probe := []byte{'{'}
	for i, c := range res.Columns {
		if i > 0 {
			probe = append(probe, ',')
		}
		probe = append(wire.AppendString(probe, c), ':')
		value := "null"
		if set {
			value = `"p"`
			for _, f := range s.fields {
				if f.column == c && f.kind == spec.Integer {
					value = "7"
				} else if f.column == c && f.kind == spec.Boolean {
					value = "true"
				}
			}
		}
		probe = append(probe, value...)
	}
	probe = append(probe, '}')
	e, err := res.scanImage(probe)
	if err != nil {
		return false
	}
	spliced, ok := s.splice(nil, string(probe))
	return ok && bytes.Equal(spliced, res.Encode(nil, e))
}

// splice appends the record of image, or answers false (b as it was) when
// the image takes the general way.
func (s *splicing) splice(b []byte, image string) ([]byte, bool) {
	if len(s.fields) == 0 {
		return b, false
	}
	var held [maxSpliced]string
	values := held[:len(s.fields)]
	if !s.split(image, values) {
		return b, false
	}
	start := len(b)
	for i := range s.fields {
		f := &s.fields[i]
		b = append(b, f.key...)
		var ok bool
		if b, ok = f.appendValue(b, values[i]); !ok {
			return b[:start], false
		}
	}
	return append(b, '}'), true
}

// appendValue appends the member's value of raw, a value of the image.
func (f *splicedField) appendValue(b []byte, raw string) ([]byte, bool) {
	if raw == "null" {
		return append(b, f.null...), true
	}
	switch f.kind {
	case spec.String:
		if !plainString(raw) {
			return b, false
		}
		return append(b, raw...), true
	case spec.Integer:
		if !shortestInt(raw) {
			return b, false
		}
		return append(b, raw...), true
	default: // spec.Boolean: PostgreSQL's true and false, SQLite's 1 and 0
		switch raw {
		case "true", "1":
			return append(b, "true"...), true
		case "false", "0":
			return append(b, "false"...), true
		}
		return b, false
	}
}

// shortestInt tells whether raw is an int64 as strconv writes it.
func shortestInt(raw string) bool {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) || raw == "-0" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainString tells whether raw is a JSON string that wire.AppendString
// writes as it is: no escape, no control character, valid UTF-8 without
// U+2028 or U+2029.
func plainString(raw string) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for i := 1; i < len(raw)-1; {
		c := raw[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(raw[i : len(raw)-1])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// split puts in values the value of each field's column in image, a flat
// JSON object, or answers false: a nested value, a column missing or twice,
// a name escaped, anything but a flat object.
func (s *splicing) split(image string, values []string) bool {
	if len(image) == 0 || image[0] != '{' { // as scanImage, which takes an object only
		return false
	}
	i := skipSpace(image, 1)
	next := 0 // the field whose column likely comes next: images follow the columns' order
	for first := true; i < len(image) && image[i] != '}'; first = false {
		if !first {
			if image[i] != ',' {
				return false
			}
			i = skipSpace(image, i+1)
		}
		end := stringEnd(image, i)
		if end < 0 || !plainString(image[i:end]) {
			return false
		}
		name := image[i+1 : end-1]
		if i = skipSpace(image, end); i >= len(image) || image[i] != ':' {
			return false
		}
		i = skipSpace(image, i+1)
		if end = valueEnd(image, i); end < 0 {
			return false
		}
		if f := s.field(name, next); f >= 0 {
			if values[f] != "" {
				return false
			}
			values[f], next = image[i:end], f+1
		}
		i = skipSpace(image, end)
	}
	if i >= len(image) || skipSpace(image, i+1) != len(image) {
		return false
	}
	for _, v := range values {
		if v == "" {
			return false
		}
	}
	return true
}

// field is the index of the field of column name, looked for at next
// first; -1 when none.
func (s *splicing) field(name string, next int) int {
	if next < len(s.fields) && s.fields[next].column == name {
		return next
	}
	for j := range s.fields {
		if s.fields[j].column == name {
			return j
		}
	}
	return -1
}

func skipSpace(b string, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the end of the JSON string at b[i], -1 when there is none.
func stringEnd(b string, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd is the end of the flat JSON value at b[i] (a string as
// plainString takes it, a number, true, false or null), -1 when there is
// none.
func valueEnd(b string, i int) int {
	if i < len(b) && b[i] == '"' {
		end := stringEnd(b, i)
		if end < 0 || !plainString(b[i:end]) {
			return -1
		}
		return end
	}
	end := i
	for end < len(b) && (b[end] >= 'a' && b[end] <= 'z' || b[end] >= '0' && b[end] <= '9' || b[end] == '+' || b[end] == '-' || b[end] == '.' || b[end] == 'E') {
		end++
	}
	if v := b[i:end]; v == "true" || v == "false" || v == "null" || isNumber(v) {
		return end
	}
	return -1
}

// isNumber tells whether v is a JSON number.
func isNumber(v string) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			n++
		}
		return n
	}
	if i < len(v) && v[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}

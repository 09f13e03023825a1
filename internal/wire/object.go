// Package wire reads and writes the JSON of request and response bodies
// without reflection: a strict reader that splits a body object into its
// members, converters from a member's raw JSON to a field's Go type, and
// append-style writers that generated encoders call.
package wire

import (
	"fmt"
	"math"
	"strconv"
)

// Member is one member of a JSON object: its name and its raw JSON value.
type Member struct {
	Name  string
	Value []byte
}

// SyntaxError is malformed JSON, with the byte offset where it went wrong.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset) }

// NotObjectError is well-formed JSON that is not an object.
type NotObjectError struct{ Kind string }

func (e *NotObjectError) Error() string { return "the body must be a JSON object, not " + e.Kind }

// DuplicateError is an object that names a member twice.
type DuplicateError struct{ Name string }

func (e *DuplicateError) Error() string { return "member " + e.Name + " appears twice" }

// DepthError is valid JSON nested deeper than the reader follows
// (MaxDepth levels of objects and arrays).
type DepthError struct{ Offset int }

func (e *DepthError) Error() string {
	return fmt.Sprintf("nested more than %d levels deep at byte %d", MaxDepth, e.Offset)
}

// MaxDepth bounds the nesting of objects and arrays the reader follows, so
// that a hostile body cannot exhaust the stack.
const MaxDepth = 64

// scanNames is how many members ParseObject compares a name with one by
// one, looking for a repeat; past them, it keeps the names in a map, so
// that an object of many members costs time in proportion to them, not to
// their square.
const scanNames = 16

// CheckUnique refuses a name given twice in any object within the JSON
// value v (valid JSON): a *DuplicateError naming it.
func CheckUnique(v []byte) error {
	p := parser{data: v, unique: true}
	return p.value(0)
}

// checkDocument is CheckUnique, every number also one a double holds.
func checkDocument(v []byte) error {
	p := parser{data: v, unique: true, finite: true}
	return p.value(0)
}

// ParseObject splits a JSON object into its members, in order. Empty or
// all-whitespace input is the empty object. The whole input is validated,
// and a member named twice is refused.
func ParseObject(data []byte) ([]Member, error) {
	p := parser{data: data}
	p.space()
	if p.pos == len(data) {
		return nil, nil
	}
	start := p.pos
	if data[p.pos] != '{' {
		if err := p.value(0); err != nil {
			return nil, err
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		return nil, &NotObjectError{Kind: Kind(data[start:p.pos])}
	}
	var members []Member
	var seen map[string]bool // past the first scanNames members
	err := p.object(0, func(name string, value []byte) error {
		if seen == nil {
			for _, m := range members {
				if m.Name == name {
					return &DuplicateError{Name: name}
				}
			}
			if len(members) == scanNames {
				seen = make(map[string]bool, 4*scanNames)
				for _, m := range members {
					seen[m.Name] = true
				}
			}
		}
		if seen != nil {
			if seen[name] {
				return &DuplicateError{Name: name}
			}
			seen[name] = true
		}
		members = append(members, Member{Name: name, Value: value})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return members, p.end()
}

// ParseArray splits a JSON array into its elements' raw values.
func ParseArray(data []byte) ([][]byte, error) {
	p := parser{data: data}
	p.space()
	if p.peek() != '[' {
		return nil, &SyntaxError{p.pos, "expected an array"}
	}
	var out [][]byte
	if err := p.array(0, func(v []byte) { out = append(out, v) }); err != nil {
		return nil, err
	}
	return out, p.end()
}

// Kind names the JSON type of a raw value, for messages.
func Kind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// IsNull tells whether a raw value is JSON null.
func IsNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

type parser struct {
	data []byte
	pos  int
	// unique: every object the parser validates must name each member
	// once (a *DuplicateError otherwise).
	unique bool
	// finite: every number must be one a double holds (a *RangeError
	// otherwise).
	finite bool
}

// RangeError is a number past what a double holds (about ±1.8e308),
// which a client's JSON decoder would read as infinite or refuse.
type RangeError struct{ Number string }

func (e *RangeError) Error() string {
	return "holds the number " + e.Number + ", beyond what a JSON number holds in double precision (about ±1.8e308)"
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *parser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) end() error {
	p.space()
	if p.pos != len(p.data) {
		return p.fail("unexpected data after the JSON value")
	}
	return nil
}

// object reads the object at p.pos. With each, member names are decoded
// and every member is handed to it; without, the object is only validated.
func (p *parser) object(depth int, each func(name string, value []byte) error) error {
	p.pos++ // {
	p.space()
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	var seen map[string]bool // with p.unique: the names so far
	if p.unique && each == nil {
		seen = map[string]bool{}
	}
	for {
		p.space()
		if p.peek() != '"' {
			return p.fail("expected a member name in double quotes")
		}
		name, err := p.scanString(each != nil || seen != nil)
		if err != nil {
			return err
		}
		if seen != nil {
			if seen[name] {
				return &DuplicateError{Name: name}
			}
			seen[name] = true
		}
		p.space()
		if p.peek() != ':' {
			return p.fail("expected : after a member name")
		}
		p.pos++
		p.space()
		start := p.pos
		if err := p.value(depth + 1); err != nil {
			return err
		}
		if each != nil {
			if err := each(name, p.data[start:p.pos]); err != nil {
				return err
			}
		}
		p.space()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.fail("expected , or } after a member")
		}
	}
}

// array reads the array at p.pos, handing each element to each (if any).
func (p *parser) array(depth int, each func(value []byte)) error {
	p.pos++ // [
	p.space()
	if p.peek() == ']' {
		p.pos++
		return nil
	}
	for {
		p.space()
		start := p.pos
		if err := p.value(depth + 1); err != nil {
			return err
		}
		if each != nil {
			each(p.data[start:p.pos])
		}
		p.space()
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.fail("expected , or ] after an array element")
		}
	}
}

// value validates one value starting at p.pos and moves past it.
func (p *parser) value(depth int) error {
	if depth > MaxDepth {
		return &DepthError{Offset: p.pos}
	}
	switch c := p.peek(); {
	case c == '{':
		return p.object(depth, nil)
	case c == '[':
		return p.array(depth, nil)
	case c == '"':
		return p.skipString()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.pos >= len(p.data):
		return p.fail("unexpected end of JSON")
	default:
		return p.fail(fmt.Sprintf("unexpected character %q", c))
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal (want true, false or null)")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

func (p *parser) number() error {
	start := p.pos
	if err := p.scanNumber(); err != nil || !p.finite {
		return err
	}
	text := string(p.data[start:p.pos])
	if f, err := strconv.ParseFloat(text, 64); err != nil && math.IsInf(f, 0) {
		return &RangeError{Number: text}
	}
	return nil
}

func (p *parser) scanNumber() error {
	if p.peek() == '-' {
		p.pos++
	}
	switch c := p.peek(); {
	case c == '0':
		p.pos++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return p.fail("invalid number")
	}
	if p.peek() == '.' {
		p.pos++
		if p.digits() == 0 {
			return p.fail("invalid number: digits must follow the decimal point")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if p.digits() == 0 {
			return p.fail("invalid number: digits must follow the exponent")
		}
	}
	return nil
}

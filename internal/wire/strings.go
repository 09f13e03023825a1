package wire

import (
	"unicode/utf8"
)

// skipString validates a string and moves past it.
func (p *parser) skipString() error {
	_, err := p.scanString(false)
	return err
}

// scanString validates the string at p.pos and moves past it, returning its
// unescaped value when decode is set.
func (p *parser) scanString(decode bool) (string, error) {
	start := p.pos
	p.pos++ // opening quote
	simple := true
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !decode {
				return "", nil
			}
			if simple {
				return string(p.data[start+1 : p.pos-1]), nil
			}
			return unescape(p.data[start+1 : p.pos-1]), nil
		case c == '\\':
			simple = false
			if p.pos+1 >= len(p.data) {
				return "", p.fail("unterminated string")
			}
			switch p.data[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.data) || !isHex4(p.data[p.pos+2:p.pos+6]) {
					return "", p.fail(`invalid \u escape`)
				}
				p.pos += 6
			default:
				return "", p.fail("invalid escape in string")
			}
		case c < 0x20:
			return "", p.fail("control character in string (escape it)")
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			p.pos += size
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// unescape decodes the content of a validated JSON string. Lone surrogates
// become U+FFFD, as in encoding/json.
func unescape(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hexVal(s[i+2 : i+6])
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2 := hexVal(s[i+2 : i+6]); r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // " \ /
			out = append(out, s[i+1])
		}
		i += 2
	}
	return string(out)
}

// String decodes a raw JSON string value (validated by ParseObject).
func decodeString(v []byte) string {
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c == '\\' {
			return unescape(inner)
		}
	}
	return string(inner)
}

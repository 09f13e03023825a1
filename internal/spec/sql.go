package spec

import "strings"

// WriteIdent writes name to b as an SQL identifier: in double quotes, any
// double quote in it doubled, as both databases read identifiers.
func WriteIdent(b *strings.Builder, name string) {
	b.WriteByte('"')
	if strings.Contains(name, `"`) {
		name = strings.ReplaceAll(name, `"`, `""`)
	}
	b.WriteString(name)
	b.WriteByte('"')
}

// Ident is name as an SQL identifier (see WriteIdent).
func Ident(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	WriteIdent(&b, name)
	return b.String()
}

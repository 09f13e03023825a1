package engine

import (
	"strconv"

	"records/internal/wire"
)

// AppendEach appends records as a JSON array with encode.
func AppendEach[E any](b []byte, records []*E, encode func([]byte, *E) []byte) []byte {
	b = append(b, '[')
	for i, r := range records {
		if i > 0 {
			b = append(b, ',')
		}
		b = encode(b, r)
	}
	return append(b, ']')
}

// AppendPaging appends a list's paging object.
func AppendPaging(b []byte, p Paging) []byte {
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	b = append(b, `,"has_more":`...)
	b = AppendBool(b, p.HasMore)
	return append(b, '}')
}

// AppendBool appends a boolean.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendSecret appends a secret made by this request, or null.
func AppendSecret(b []byte, secret string) []byte {
	if secret == "" {
		return append(b, "null"...)
	}
	return wire.AppendString(b, secret)
}

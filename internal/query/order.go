package query

import (
	"fmt"
	"strings"

	"records/internal/spec"
	"records/internal/suggest"
)

// Key is one key of an order.
type Key struct {
	Col  *Column
	Desc bool
}

// MaxKeys bounds the keys of an order.
const MaxKeys = spec.MaxOrderKeys

// ParseOrder reads order_by: one member or a comma-separated list, each
// optionally prefixed with - for descending; a key without it follows
// desc (order_direction). The id always breaks ties last, in the direction
// of the key before it, so that an order by one indexed member walks its
// index whichever way it goes; naming the id ends the keys.
func ParseOrder(text string, desc bool, cols Columns) ([]Key, error) {
	var keys []Key
	seen := map[string]bool{}
	if strings.TrimSpace(text) != "" {
		for _, part := range strings.Split(text, ",") {
			name := strings.TrimSpace(part)
			d := desc
			if strings.HasPrefix(name, "-") {
				name, d = strings.TrimSpace(name[1:]), true
			}
			if len(keys) > 0 && keys[len(keys)-1].Col == IDColumn {
				return nil, fmt.Errorf("the id is unique, so no key can follow it (after %q)", name)
			}
			col := cols[name]
			if name == "id" {
				col = IDColumn
			}
			switch {
			case name == "":
				return nil, fmt.Errorf("names an empty key; write member names separated by commas")
			case col == nil:
				return nil, fmt.Errorf("no member %q to order by%s", name, suggest.Hint(name, cols.names()))
			case seen[name]:
				return nil, fmt.Errorf("names %q twice", name)
			case len(keys) == MaxKeys:
				return nil, fmt.Errorf("orders by at most %d keys", MaxKeys)
			}
			seen[name] = true
			keys = append(keys, Key{Col: col, Desc: d})
		}
	}
	if len(keys) == 0 || keys[len(keys)-1].Col != IDColumn {
		idDesc := desc
		if len(keys) > 0 {
			idDesc = keys[len(keys)-1].Desc
		}
		keys = append(keys, Key{Col: IDColumn, Desc: idDesc})
	}
	return keys, nil
}

// orderBy writes the ORDER BY list of keys. Nulls sort last going up and
// first going down on both databases (their defaults differ), as a null is
// taken for greater than every value.
func orderBy(keys []Key) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Col.quoted())
		if k.Desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
		if k.Col != IDColumn {
			if k.Desc {
				b.WriteString(" NULLS FIRST")
			} else {
				b.WriteString(" NULLS LAST")
			}
		}
	}
	return b.String()
}

package query

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"

	"records/internal/wire"
)

// node is a filter as a client sent it: a JSON value of a body (jsonNode),
// or the tree that a query string's filter[…][…] parameters make
// (queryNode). The filter parser reads both alike.
type node interface {
	// members are an object's members in order; false if it is none.
	members() ([]entry, bool)
	// items are an array's items, each named by its index; false if it
	// is none.
	items() ([]entry, bool)
	// value is a value that is not an object, as JSON; false if none.
	value() ([]byte, bool)
	// text tells that the values are a query string's: strings, and the
	// values of in and nin may also be one string separated by commas.
	text() bool
}

// scalar is n's value when n holds nothing else (no members beside it, as
// a query string's filter[qty][gt]=1&filter[qty][gt][0]=2 would).
func scalar(n node) ([]byte, bool) {
	raw, ok := n.value()
	if _, nested := n.members(); !ok || nested {
		return nil, false
	}
	return raw, true
}

// entry is a member of an object or an item of an array.
type entry struct {
	name string
	node node
}

// jsonNode is a value of a JSON body.
type jsonNode []byte

func (n jsonNode) members() ([]entry, bool) {
	ms, err := wire.ParseObject(n)
	if err != nil || wire.Kind(n) != "an object" {
		return nil, false
	}
	out := make([]entry, len(ms))
	for i, m := range ms {
		out[i] = entry{m.Name, jsonNode(m.Value)}
	}
	return out, true
}

// repeated is the name a JSON object node gives twice, or "". (A query
// string's repeats are refused as it is read.)
func repeated(n node) string {
	var dup *wire.DuplicateError
	if j, ok := n.(jsonNode); ok && wire.Kind(j) == "an object" {
		if _, err := wire.ParseObject(j); errors.As(err, &dup) {
			return dup.Name
		}
	}
	return ""
}

func (n jsonNode) items() ([]entry, bool) {
	vs, err := wire.ParseArray(n)
	if err != nil || wire.Kind(n) != "an array" {
		return nil, false
	}
	out := make([]entry, len(vs))
	for i, v := range vs {
		out[i] = entry{strconv.Itoa(i), jsonNode(v)}
	}
	return out, true
}

func (n jsonNode) value() ([]byte, bool) { return n, wire.Kind(n) != "an object" }
func (n jsonNode) text() bool            { return false }

// queryNode is one name of a query string's filter parameters:
// filter[or][0][status][ne]=x makes the nodes or, 0, status and ne, the
// last holding the value. A node may hold a value and members both
// (filter[status]=a&filter[status][ne]=b: an exact value and an operator).
type queryNode struct {
	val  []byte  // as a JSON string; nil if no parameter names the node itself
	kids []entry // sorted by name; each node a *queryNode
}

// maxIndex bounds the index of an item in a query string (filter[or][7]):
// a filter holds at most MaxTerms operators and in MaxInItems values.
const maxIndex = MaxInItems - 1

// put adds the parameter named by path (the names between filter's
// brackets) with its value.
func (n *queryNode) put(path []string, val []byte) {
	for _, name := range path {
		i, found := slices.BinarySearchFunc(n.kids, name, func(e entry, name string) int { return strings.Compare(e.name, name) })
		if !found {
			n.kids = slices.Insert(n.kids, i, entry{name, &queryNode{}})
		}
		n = n.kids[i].node.(*queryNode)
	}
	n.val = val
}

func (n *queryNode) members() ([]entry, bool) { return n.kids, len(n.kids) > 0 }

// items are the members named by indices (0, 1, …, in their order), if
// every member is so named and no parameter names the node itself.
func (n *queryNode) items() ([]entry, bool) {
	if n.val != nil || len(n.kids) == 0 {
		return nil, false
	}
	for _, e := range n.kids {
		i, err := strconv.Atoi(e.name)
		if err != nil || i < 0 || i > maxIndex || strconv.Itoa(i) != e.name {
			return nil, false
		}
	}
	// Numbers written without leading zeros order as numbers by length,
	// then as text.
	return slices.SortedFunc(slices.Values(n.kids), func(a, b entry) int {
		return cmp.Or(len(a.name)-len(b.name), strings.Compare(a.name, b.name))
	}), true
}

func (n *queryNode) value() ([]byte, bool) { return n.val, n.val != nil }
func (n *queryNode) text() bool            { return true }

// filterMember names a query string's filter parameter in messages, as a
// body's member is named: "or][0][status" is filter.or[0].status.
func filterMember(inner string) string {
	path, ok := queryPath(inner)
	if !ok {
		return ParamFilter + "." + strings.NewReplacer("][", ".", "[", "", "]", "").Replace(inner)
	}
	// As the filter's other problems name it: filter.or[0].status.in[1].
	b := []byte(ParamFilter)
	for _, name := range path {
		if _, err := strconv.Atoi(name); err == nil {
			b = append(append(append(b, '['), name...), ']')
		} else {
			b = append(append(b, '.'), name...)
		}
	}
	return string(b)
}

// queryPath splits the name of a query string's filter parameter, the text
// between "filter[" and its last "]", into the names between brackets:
// "or][0][status" is or, 0, status. It is false for a name that is not
// brackets after brackets (an empty name, a bracket inside one).
func queryPath(inner string) ([]string, bool) {
	path := strings.Split(inner, "][")
	for _, name := range path {
		if name == "" || strings.ContainsAny(name, "[]") {
			return nil, false
		}
	}
	return path, true
}

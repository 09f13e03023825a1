package gen

import (
	"bytes"
	"encoding/json"
)

// obj is a JSON object that keeps its members in the order they were set,
// so the document reads in contract order and renders the same every time.
type obj struct {
	keys []string
	vals map[string]any
}

func newObj(kv ...any) *obj {
	o := &obj{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *obj) set(k string, v any) *obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

func (o *obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// copy returns a copy of o's members, to which more can be set.
func (o *obj) copy() *obj {
	out := newObj()
	for _, k := range o.keys {
		out.set(k, o.vals[k])
	}
	return out
}

// ref, paramRef, headerRef and responseRef refer to components by name.
func ref(name string) *obj         { return newObj("$ref", "#/components/schemas/"+name) }
func paramRef(name string) *obj    { return newObj("$ref", "#/components/parameters/"+name+"Param") }
func headerRef(name string) *obj   { return newObj("$ref", "#/components/headers/"+name) }
func responseRef(name string) *obj { return newObj("$ref", "#/components/responses/"+name) }
